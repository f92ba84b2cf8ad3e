/**
 * The sweep's own rules over items written straight to the table: which chunks no reader reaches
 * (no head, or a head of another version), how old they must be, how chunk sort keys are read,
 * and that deleting a group reads its head again first. `test/cli/sweep.test.ts` runs the same
 * code over what failed requests really leave behind.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { StoreBusyError } from '../../lib/storage/faults';
import { deleteOrphanedChunks, findOrphanedChunks, type OrphanedChunks } from '../../lib/systems/sweep';
import { throughFaultProxy, useFreshTable, withBatchAnswer } from '../helpers/dynalite';

const table = useFreshTable();

const HOUR = 60 * 60 * 1000;
const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
/** A system id created at `ms`; `n` (0..31) tells ids of the same millisecond apart. */
const idAt = (ms: number, n = 0) => ulid(ms, () => n / 32);

type Item = Record<string, unknown>;

const headOf = (owner: string, id: string, version?: number): Item => ({
  pk: `OWNER#${owner}`,
  sk: `SYSTEM#${id}`,
  id,
  owner,
  ...(version === undefined ? {} : { version }),
});
const chunkOf = (id: string, sk: string, writtenAt: number | string | undefined, owner = 'alice'): Item => ({
  pk: `SYSTEM#${id}`,
  sk,
  owner,
  data: new Uint8Array([1, 2, 3]),
  ...(writtenAt === undefined
    ? {}
    : { writtenAt: typeof writtenAt === 'number' ? iso(writtenAt) : writtenAt }),
});

async function write(...items: Item[]) {
  for (let start = 0; start < items.length; start += 25) {
    await table.doc.send(
      new BatchWriteCommand({
        RequestItems: {
          [table.tableName]: items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } })),
        },
      }),
    );
  }
}

/** The sort keys left in the table, by partition. */
async function remaining(): Promise<Record<string, string[]>> {
  const { Items = [] } = await table.doc.send(new ScanCommand({ TableName: table.tableName }));
  const byPartition: Record<string, string[]> = {};
  for (const { pk, sk } of Items) {
    byPartition[String(pk)] = [...(byPartition[String(pk)] ?? []), String(sk)];
  }
  for (const keys of Object.values(byPartition)) keys.sort();
  return byPartition;
}

const find = (options: { now?: number; minAgeMs?: number } = { now: NOW }, doc = table.doc) =>
  findOrphanedChunks(doc, table.tableName, options);

describe('findOrphanedChunks', () => {
  // Four systems, all written hours ago. `live` reads its chunks; `gone` has no head any more;
  // `refreshed` is at version 3, so its chunks of versions 1 and 2 are unread; `lostRace` lost a
  // refresh (its head is still version 1) and kept the version 2 it wrote.
  it('lists the chunks no head reads, with the reason, oldest group first', async () => {
    const live = idAt(NOW - 9 * HOUR, 1);
    const gone = idAt(NOW - 9 * HOUR, 2);
    const refreshed = idAt(NOW - 9 * HOUR, 3);
    const lostRace = idAt(NOW - 9 * HOUR, 4);
    await write(
      headOf('alice', live),
      chunkOf(live, 'CHUNK#00000', NOW - 8 * HOUR),
      chunkOf(live, 'CHUNK#00001', NOW - 8 * HOUR),
      chunkOf(gone, 'CHUNK#00000', NOW - 7 * HOUR, 'bob'),
      chunkOf(gone, 'CHUNK#00001', NOW - 5 * HOUR, 'bob'),
      chunkOf(gone, 'CHUNK#00002', NOW - 6 * HOUR, 'bob'),
      headOf('carol', refreshed, 3),
      chunkOf(refreshed, 'CHUNK#00000', NOW - 4 * HOUR, 'carol'),
      chunkOf(refreshed, 'CHUNK#v2#00000', NOW - 3 * HOUR, 'carol'),
      chunkOf(refreshed, 'CHUNK#v3#00000', NOW - 2 * HOUR, 'carol'),
      chunkOf(refreshed, 'CHUNK#v3#00001', NOW - 2 * HOUR, 'carol'),
      headOf('dave', lostRace),
      chunkOf(lostRace, 'CHUNK#00000', NOW - 8 * HOUR, 'dave'),
      chunkOf(lostRace, 'CHUNK#v2#00000', NOW - 2.5 * HOUR, 'dave'),
    );
    const key = (id: string, sk: string) => ({ pk: `SYSTEM#${id}`, sk });
    expect(await find()).toEqual([
      {
        id: gone,
        owner: 'bob',
        version: 1,
        reason: 'no head',
        // The newest of the three.
        writtenAt: iso(NOW - 5 * HOUR),
        keys: [key(gone, 'CHUNK#00000'), key(gone, 'CHUNK#00001'), key(gone, 'CHUNK#00002')],
      },
      {
        id: refreshed,
        owner: 'carol',
        version: 1,
        reason: 'the head reads version 3',
        writtenAt: iso(NOW - 4 * HOUR),
        keys: [key(refreshed, 'CHUNK#00000')],
      },
      {
        id: refreshed,
        owner: 'carol',
        version: 2,
        reason: 'the head reads version 3',
        writtenAt: iso(NOW - 3 * HOUR),
        keys: [key(refreshed, 'CHUNK#v2#00000')],
      },
      {
        id: lostRace,
        owner: 'dave',
        version: 2,
        // A head without a version is version 1.
        reason: 'the head reads version 1',
        writtenAt: iso(NOW - 2.5 * HOUR),
        keys: [key(lostRace, 'CHUNK#v2#00000')],
      },
    ]);
  });

  // A refresh that found version 2's keys taken wrote version 3's, and its head says so: those
  // are read, version 2's are not, whatever the head's own version.
  it('follows the chunk version a head records', async () => {
    const id = idAt(NOW - 9 * HOUR, 8);
    await write(
      { ...headOf('alice', id, 2), chunkVersion: 3 },
      chunkOf(id, 'CHUNK#v2#00000', NOW - 3 * HOUR),
      chunkOf(id, 'CHUNK#v3#00000', NOW - 2 * HOUR),
    );
    const orphans = await find();
    expect(orphans).toMatchObject([{ id, version: 2, reason: 'the head reads version 3' }]);
    // Deleting reads the head again and follows the same rule.
    expect(await deleteOrphanedChunks(table.doc, table.tableName, { ...orphans[0]!, version: 3 })).toBe(0);
    expect(await deleteOrphanedChunks(table.doc, table.tableName, orphans[0]!)).toBe(1);
    expect((await remaining())[`SYSTEM#${id}`]).toEqual(['CHUNK#v3#00000']);
  });

  // A chunk's sort key is `CHUNK#` and five digits, or `CHUNK#v<version>#` and five digits, in a
  // system's partition (`SYSTEM#` and a ULID). Nothing else is a chunk, however close: the sweep
  // must never delete an item it does not understand.
  it('counts only chunk items of a system partition', async () => {
    const id = idAt(NOW - 9 * HOUR, 5);
    const other = idAt(NOW - 9 * HOUR, 6);
    const old = NOW - 5 * HOUR;
    const notChunks = [
      'CHUNK#',
      'CHUNK#v2#',
      'CHUNK#v#00000',
      'CHUNK#vx#00000',
      'CHUNK#v2x#00000',
      'CHUNK#V2#00000',
      'CHUNK#x00000',
      'CHUNK#00000x',
      'CHUNK#v2#00000#',
      'CHUNK#v2#00000x',
      'XCHUNK#00000',
      'CHUNK00000',
      'chunk#00000',
      'META',
    ];
    await write(
      ...notChunks.map((sk) => chunkOf(id, sk, old)),
      // The right sort key in a partition that is not a system's (`APIKEY#` is as long as `SYSTEM#`).
      { ...chunkOf(other, 'CHUNK#00000', old), pk: `APIKEY#${other}` },
      { ...chunkOf(other, 'CHUNK#00000', old), pk: `OWNER#${other}` },
      { ...chunkOf(other, 'CHUNK#00000', old), pk: 'SYSTEM#not-a-ulid' },
      { ...chunkOf(other, 'CHUNK#00000', old), pk: `SYSTEM#${other.toLowerCase()}` },
      { ...chunkOf(other, 'CHUNK#00000', old), pk: `xSYSTEM#${other}` },
    );
    expect(await find()).toEqual([]);

    // Versions of more than one digit, and indexes past the first.
    await write(chunkOf(id, 'CHUNK#v12#00003', old), chunkOf(id, 'CHUNK#00042', old));
    expect((await find()).map(({ version, keys }) => ({ version, keys: keys.map((key) => key.sk) }))).toEqual(
      [
        { version: 1, keys: ['CHUNK#00042'] },
        { version: 12, keys: ['CHUNK#v12#00003'] },
      ],
    );
  });

  // Only a head (`OWNER#<owner>`, `SYSTEM#<id>`) keeps chunks alive: another item that names the
  // id does not.
  it('takes only heads for heads', async () => {
    const id = idAt(NOW - 9 * HOUR, 7);
    await write(
      chunkOf(id, 'CHUNK#00000', NOW - 5 * HOUR),
      { pk: `SYSTEM#${id}`, sk: `SYSTEM#${id}`, version: 1 },
      { pk: `OWNER#${id}`, sk: `APIKEY#${id}`, version: 1 },
      { pk: 'OWNER#alice', sk: `XYSTEM#${id}`, version: 1 },
    );
    expect(await find()).toMatchObject([{ id, version: 1, reason: 'no head' }]);
    await write(headOf('alice', id));
    expect(await find()).toEqual([]);
  });

  // A create or refresh writes its chunks before its head, within seconds: a group counts once
  // its newest chunk is an hour old, and not a millisecond before.
  it('leaves chunks younger than an hour alone', async () => {
    const ids = Array.from({ length: 6 }, (_, n) => idAt(NOW - 9 * HOUR, n));
    await write(
      chunkOf(ids[0]!, 'CHUNK#00000', NOW - HOUR),
      chunkOf(ids[1]!, 'CHUNK#00000', NOW - HOUR + 1),
      // Older chunks from before `writtenAt` existed: dated by the id's ULID time.
      chunkOf(idAt(NOW - 2 * HOUR, 2), 'CHUNK#00000', undefined),
      chunkOf(idAt(NOW - HOUR + 1, 3), 'CHUNK#00000', undefined),
      // A group with one young chunk may be a refresh still writing.
      chunkOf(ids[4]!, 'CHUNK#00000', NOW - 5 * HOUR),
      chunkOf(ids[4]!, 'CHUNK#00001', NOW - 10 * 60 * 1000),
      // A date that does not parse cannot be trusted to be old: it counts as just written.
      chunkOf(ids[5]!, 'CHUNK#00000', 'yesterday'),
    );
    expect((await find()).map(({ id, writtenAt }) => ({ id, writtenAt }))).toEqual([
      { id: idAt(NOW - 2 * HOUR, 2), writtenAt: iso(NOW - 2 * HOUR) },
      { id: ids[0], writtenAt: iso(NOW - HOUR) },
    ]);
    // Another minimum age moves the cut-off; with none, everything orphaned counts.
    expect((await find({ now: NOW, minAgeMs: 2 * HOUR })).map(({ id }) => id)).toEqual([
      idAt(NOW - 2 * HOUR, 2),
    ]);
    expect(await find({ now: NOW, minAgeMs: 0 })).toHaveLength(6);
  });

  // Without a clock given, the sweep uses the real one.
  it('measures age from the current time by default', async () => {
    const now = Date.now();
    const [old, young] = [idAt(now - 9 * HOUR, 1), idAt(now - 9 * HOUR, 2)];
    await write(
      chunkOf(old, 'CHUNK#00000', now - 2 * HOUR),
      chunkOf(young, 'CHUNK#00000', now - 10 * 60 * 1000),
    );
    expect((await find({})).map(({ id }) => id)).toEqual([old]);
    expect((await find({ minAgeMs: 0 })).map(({ id }) => id).sort()).toEqual([old, young].sort());
  });

  // A chunk without an owner attribute is still found, with an empty owner (no head matches it).
  it('lists a chunk without an owner', async () => {
    const id = idAt(NOW - 9 * HOUR, 1);
    const { owner: _owner, ...chunk } = chunkOf(id, 'CHUNK#00000', NOW - 2 * HOUR);
    await write(chunk);
    expect(await find()).toMatchObject([{ id, owner: '', reason: 'no head' }]);
  });

  // A Scan returns at most 1 MB per page and promises no order: a head on one page still keeps
  // its chunks on another alive, and the answer is the same whatever order the items come in.
  it('reads every page of the Scan, in any order', async () => {
    const big = new Uint8Array(300_000).fill(7);
    const live = idAt(NOW - 9 * HOUR, 1);
    const gone = idAt(NOW - 9 * HOUR, 2);
    const chunks = (id: string, owner: string) =>
      Array.from({ length: 4 }, (_, index) => ({
        ...chunkOf(id, `CHUNK#${String(index).padStart(5, '0')}`, NOW - (5 - index) * HOUR, owner),
        data: big,
      }));
    for (const item of [headOf('alice', live), ...chunks(live, 'alice'), ...chunks(gone, 'bob')])
      await write(item);
    const older = idAt(NOW - 9 * HOUR, 3);
    await write(chunkOf(older, 'CHUNK#00000', NOW - 6 * HOUR));

    let pages = 0;
    const reversing = new Proxy(table.doc, {
      get(target, property, receiver) {
        if (property !== 'send') return Reflect.get(target, property, receiver);
        return async (command: Parameters<DynamoDBDocumentClient['send']>[0]) => {
          const answer = (await target.send(command)) as { Items?: Item[] };
          if (command instanceof ScanCommand) {
            pages += 1;
            answer.Items?.reverse();
          }
          return answer;
        };
      },
    });
    const expected = [
      { id: older, owner: 'alice', keys: ['CHUNK#00000'] },
      { id: gone, owner: 'bob', keys: ['CHUNK#00000', 'CHUNK#00001', 'CHUNK#00002', 'CHUNK#00003'] },
    ];
    const summary = (orphans: OrphanedChunks[]) =>
      orphans.map(({ id, owner, keys }) => ({ id, owner, keys: keys.map((key) => key.sk) }));
    expect(summary(await find({ now: NOW }, reversing))).toEqual(expected);
    expect(pages).toBeGreaterThan(1);
    expect(summary(await find())).toEqual(expected);
  });
});

describe('deleteOrphanedChunks', () => {
  const deleteGroup = (orphan: OrphanedChunks, doc = table.doc) =>
    deleteOrphanedChunks(doc, table.tableName, orphan);

  // Thirty chunks (two batches) go; the live system's chunks and another group's stay.
  it('deletes every chunk of the group and nothing else', async () => {
    const gone = idAt(NOW - 9 * HOUR, 1);
    const live = idAt(NOW - 9 * HOUR, 2);
    const sks = Array.from({ length: 30 }, (_, index) => `CHUNK#v2#${String(index).padStart(5, '0')}`);
    await write(
      headOf('alice', gone, 3),
      ...sks.map((sk) => chunkOf(gone, sk, NOW - 2 * HOUR)),
      chunkOf(gone, 'CHUNK#00000', NOW - 3 * HOUR),
      headOf('alice', live),
      chunkOf(live, 'CHUNK#00000', NOW - 2 * HOUR),
    );
    const [first, second, ...none] = await find();
    expect(none).toEqual([]);
    expect(first).toMatchObject({ id: gone, version: 1 });
    expect(second).toMatchObject({ id: gone, version: 2, reason: 'the head reads version 3' });
    expect(await deleteGroup(second!)).toBe(30);
    expect(await remaining()).toEqual({
      'OWNER#alice': [`SYSTEM#${gone}`, `SYSTEM#${live}`],
      [`SYSTEM#${gone}`]: ['CHUNK#00000'],
      [`SYSTEM#${live}`]: ['CHUNK#00000'],
    });
    expect(await deleteGroup(first!)).toBe(1);
    expect(await find()).toEqual([]);
  });

  // Between the listing and the delete, a head came to read the group (a create that finished
  // late, a refresh that won after all): its chunks are no longer orphans and stay.
  it('keeps a group its head has come to read meanwhile', async () => {
    const late = idAt(NOW - 9 * HOUR, 1);
    const refreshed = idAt(NOW - 9 * HOUR, 2);
    await write(
      chunkOf(late, 'CHUNK#00000', NOW - 3 * HOUR),
      headOf('alice', refreshed),
      chunkOf(refreshed, 'CHUNK#v2#00000', NOW - 2 * HOUR),
    );
    const orphans = await find();
    expect(orphans.map(({ id, reason }) => ({ id, reason }))).toEqual([
      { id: late, reason: 'no head' },
      { id: refreshed, reason: 'the head reads version 1' },
    ]);
    await write(headOf('alice', late), headOf('alice', refreshed, 2));
    for (const orphan of orphans) expect(await deleteGroup(orphan)).toBe(0);
    expect(await remaining()).toMatchObject({
      [`SYSTEM#${late}`]: ['CHUNK#00000'],
      [`SYSTEM#${refreshed}`]: ['CHUNK#v2#00000'],
    });
  });

  // DynamoDB may leave part of a batch unprocessed under load: it is sent again, and after eight
  // tries without progress the sweep stops with a busy error instead of spinning.
  it('retries what a batch leaves unprocessed, up to eight times', async () => {
    const id = idAt(NOW - 9 * HOUR, 1);
    await write(
      ...Array.from({ length: 3 }, (_, index) => chunkOf(id, `CHUNK#0000${index}`, NOW - 2 * HOUR)),
    );
    const [orphan] = await find();
    // Each batch processes only its first request.
    let batches = 0;
    const partial = withBatchAnswer(table.doc, table.tableName, (requests) => {
      batches += 1;
      return { processed: requests.slice(0, 1), unprocessed: requests.slice(1) };
    });
    expect(await deleteGroup(orphan!, partial)).toBe(3);
    expect(batches).toBe(3);
    expect(await remaining()).toEqual({});

    await write(...orphan!.keys.map((key) => chunkOf(id, key.sk, NOW - 2 * HOUR)));
    batches = 0;
    const stuck = withBatchAnswer(table.doc, table.tableName, (requests) => {
      batches += 1;
      return { processed: [], unprocessed: requests };
    });
    await expect(deleteGroup(orphan!, stuck)).rejects.toThrow(
      new StoreBusyError(`system ${id}: 3 chunks still undeleted after 8 attempts`),
    );
    expect(batches).toBe(8);
    expect(Object.values(await remaining()).flat()).toHaveLength(3);
  });
});

describe('reads', () => {
  // DynamoDB's reads are eventually consistent unless asked: a sweep that read a stale head could
  // delete the chunks of a refresh that had just won. dynalite always reads consistently, so the
  // wire request itself is checked.
  it('asks DynamoDB for strongly consistent reads', async () => {
    const id = idAt(NOW - 9 * HOUR, 1);
    await write(chunkOf(id, 'CHUNK#00000', NOW - 2 * HOUR));
    const proxied = await throughFaultProxy(table);
    try {
      const [orphan] = await find({ now: NOW }, proxied.doc);
      expect(await deleteOrphanedChunks(proxied.doc, table.tableName, orphan!)).toBe(1);
      expect(proxied.proxy.calls.map(({ operation, body }) => [operation, body.ConsistentRead])).toEqual([
        ['Scan', true],
        ['GetItem', true],
        ['BatchWriteItem', undefined],
      ]);
    } finally {
      await proxied.close();
    }
  });
});
