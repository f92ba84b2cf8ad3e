/**
 * How an owner's listing reads the keys its index entries name: BatchGetItem, at most 100 keys a
 * request (DynamoDB's limit), and what happens when DynamoDB leaves part of a batch unread (its
 * answer to throttling inside a batch, which the SDK does not retry): the rest is asked for again,
 * the first time at once and then after a doubling pause, and after 8 requests in all the listing
 * fails as "store busy" (a 503 to the caller) rather than show part of the owner's keys.
 *
 * The pauses are recorded instead of slept, so the schedule is checked exactly and costs nothing.
 */
import { BatchGetCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoApiKeyStore, issueApiKey } from '../../lib/keys';
import { StoreBusyError } from '../../lib/storage/faults';
import { useFreshTable } from '../helpers/dynalite';

/** What the store did, in order: `get <n>` for a BatchGetItem of n keys, `pause <ms>` for a backoff. */
const events = vi.hoisted(() => [] as string[]);
vi.mock('node:timers/promises', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:timers/promises')>()),
  setTimeout: async (ms: number) => {
    events.push(`pause ${ms}`);
  },
}));

const table = useFreshTable();
beforeEach(() => {
  events.length = 0;
});

const T0 = Date.parse('2025-03-01T12:00:00.000Z');
type Keys = Array<Record<string, unknown>>;

/**
 * A store whose BatchGetItem requests DynamoDB answers only for the first `processed(keys)` keys
 * (read for real from dynalite), returning the others as UnprocessedKeys, as DynamoDB does.
 */
function storeReading(processed: (keys: Keys) => number) {
  const doc = new Proxy(table.doc, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return async (command: Parameters<typeof target.send>[0]) => {
        if (!(command instanceof BatchGetCommand)) return target.send(command);
        const request = command.input.RequestItems?.[table.tableName];
        const keys = (request?.Keys ?? []) as Keys;
        events.push(`get ${keys.length}`);
        const count = processed(keys);
        // Nothing read: no Responses at all (the field is optional in DynamoDB's answer).
        const answer: BatchGetCommandOutput =
          count === 0
            ? { $metadata: {} }
            : await target.send(
                new BatchGetCommand({
                  RequestItems: { [table.tableName]: { ...request, Keys: keys.slice(0, count) } },
                }),
              );
        const unread = keys.slice(count);
        return unread.length === 0
          ? answer
          : { ...answer, UnprocessedKeys: { [table.tableName]: { ...request, Keys: unread } } };
      };
    },
  });
  return new DynamoApiKeyStore({ doc, tableName: table.tableName });
}

/** `count` keys of alice's, one a second from T0, named k0, k1, … */
async function aliceKeys(count: number) {
  const plain = new DynamoApiKeyStore({ doc: table.doc, tableName: table.tableName });
  const names = Array.from({ length: count }, (_, index) => `k${index}`);
  for (let start = 0; start < count; start += 25) {
    await Promise.all(
      names
        .slice(start, start + 25)
        .map((name, offset) =>
          issueApiKey(plain, { owner: 'alice', name }, new Date(T0 + (start + offset) * 1000)),
        ),
    );
  }
  return names;
}

describe('listByOwner reads the keys in batches', () => {
  // 150 keys are two requests, of 100 and 50: DynamoDB refuses a batch of more than 100.
  it('asks for at most 100 keys a request and lists all 150, oldest first', async () => {
    const names = await aliceKeys(150);
    const store = storeReading((keys) => keys.length);
    expect((await store.listByOwner('alice')).map((record) => record.name)).toEqual(names);
    expect(events).toEqual(['get 100', 'get 50']);
  });

  // DynamoDB reads two keys of each request: 5 keys take three requests, the second at once,
  // the third after 100 ms (25 ms doubled twice).
  it('asks again for the keys DynamoDB left unread until it has them all', async () => {
    const names = await aliceKeys(5);
    const store = storeReading(() => 2);
    expect((await store.listByOwner('alice')).map((record) => record.name)).toEqual(names);
    expect(events).toEqual(['get 5', 'get 3', 'pause 100', 'get 1']);
  });

  // A table that keeps throttling: 8 requests, the pauses doubling from 100 ms to a cap of 1 s
  // (about 3.5 s in all, well inside a function's timeout), then a "store busy" error that
  // names what is left unread. No partial list is returned.
  it('gives up after 8 requests that each leave keys unread', async () => {
    await aliceKeys(3);
    const store = storeReading(() => 0);
    const failure = store.listByOwner('alice');
    await expect(failure).rejects.toBeInstanceOf(StoreBusyError);
    await expect(failure).rejects.toThrow('3 API keys still unread after 8 attempts');
    expect(events).toEqual([
      'get 3',
      'get 3',
      'pause 100',
      'get 3',
      'pause 200',
      'get 3',
      'pause 400',
      'get 3',
      'pause 800',
      'get 3',
      'pause 1000',
      'get 3',
      'pause 1000',
      'get 3',
    ]);
  });

  // One key read on each of 8 requests is progress enough: 8 keys need exactly 8 requests.
  it('counts requests, not keys: 8 keys read one a request are all listed', async () => {
    const names = await aliceKeys(8);
    const store = storeReading(() => 1);
    expect((await store.listByOwner('alice')).map((record) => record.name)).toEqual(names);
    expect(events.filter((event) => event.startsWith('get'))).toEqual([
      'get 8',
      'get 7',
      'get 6',
      'get 5',
      'get 4',
      'get 3',
      'get 2',
      'get 1',
    ]);
  });
});
