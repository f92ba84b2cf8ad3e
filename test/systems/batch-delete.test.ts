/**
 * Deleting chunks in batches: 25 keys a call, whatever DynamoDB leaves unprocessed sent again,
 * the first retry at once and later ones backing off, and a busy error after eight attempts.
 * The waits are recorded rather than slept.
 */
import { BatchWriteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { StoreBusyError } from '../../lib/storage/faults';
import { deleteBatch, inBatches } from '../../lib/systems/batch-delete';
import type { ItemKey } from '../../lib/systems/items';
import { useFreshTable, withBatchAnswer } from '../helpers/dynalite';

const table = useFreshTable();

const keysOf = (count: number): ItemKey[] =>
  Array.from({ length: count }, (_, index) => ({
    pk: 'SYSTEM#x',
    sk: `CHUNK#${String(index).padStart(5, '0')}`,
  }));

async function writeChunks(keys: ItemKey[]) {
  for (const batch of inBatches(keys)) {
    await table.doc.send(
      new BatchWriteCommand({
        RequestItems: { [table.tableName]: batch.map((Item) => ({ PutRequest: { Item } })) },
      }),
    );
  }
}

async function storedCount() {
  const { Items = [] } = await table.doc.send(new ScanCommand({ TableName: table.tableName }));
  return Items.length;
}

describe('inBatches', () => {
  // BatchWriteItem takes at most 25 requests: 51 keys are three calls, in order, none lost.
  it('splits keys into batches of at most 25, in order', () => {
    expect(inBatches([])).toEqual([]);
    expect(inBatches(keysOf(25))).toEqual([keysOf(25)]);
    const batches = inBatches(keysOf(51));
    expect(batches.map((batch) => batch.length)).toEqual([25, 25, 1]);
    expect(batches.flat()).toEqual(keysOf(51));
  });
});

describe('deleteBatch', () => {
  // DynamoDB processes one request per call: three calls delete three chunks; only the third
  // waits (the first retry goes at once).
  it('sends what is left unprocessed again until nothing is', async () => {
    const keys = keysOf(3);
    await writeChunks(keys);
    let calls = 0;
    const doc = withBatchAnswer(table.doc, table.tableName, (requests) => {
      calls += 1;
      return { processed: requests.slice(0, 1), unprocessed: requests.slice(1) };
    });
    const waits: number[] = [];
    await deleteBatch(doc, table.tableName, keys, 'system x', async (ms) => waits.push(ms));
    expect(calls).toBe(3);
    expect(waits).toEqual([100]);
    expect(await storedCount()).toBe(0);
  });

  // Nothing processed, ever: eight attempts with waits of 100 ms doubling up to a second, then a
  // busy error naming the system and what is left.
  it('gives up after eight attempts, backing off in between', async () => {
    const keys = keysOf(4);
    await writeChunks(keys);
    let calls = 0;
    const doc = withBatchAnswer(table.doc, table.tableName, (requests) => {
      calls += 1;
      return { processed: [], unprocessed: requests };
    });
    const waits: number[] = [];
    await expect(
      deleteBatch(doc, table.tableName, keys, 'system x', async (ms) => waits.push(ms)),
    ).rejects.toThrow(new StoreBusyError('system x: 4 chunks still undeleted after 8 attempts'));
    expect(calls).toBe(8);
    expect(waits).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(await storedCount()).toBe(4);
  });

  // No keys, no call.
  it('sends nothing for no keys', async () => {
    let calls = 0;
    const doc = withBatchAnswer(table.doc, table.tableName, () => {
      calls += 1;
      return { processed: [], unprocessed: [] };
    });
    await deleteBatch(doc, table.tableName, [], 'system x');
    expect(calls).toBe(0);
  });
});
