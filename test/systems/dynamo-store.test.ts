import { createHash } from 'node:crypto';
import { DeleteItemCommand, GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand as GetCommandForDoc,
  PutCommand,
  QueryCommand as QueryCommandForDoc,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { monotonicFactory } from 'ulid';
import { describe, expect, it } from 'vitest';
import { DynamoOwnerQuotas, type OwnerQuotas, QuotaExceededError } from '../../lib/storage/quotas';
import { DynamoSystemStore, SystemInputError } from '../../lib/systems';
import { SettingsChangedError, SystemChangedError, SystemStorageError } from '../../lib/systems/errors';
import { RECORD_ATTRIBUTES } from '../../lib/systems/items';
import { WORKED_EXAMPLE } from '../../lib/worked-example';
import { throughFaultProxy, useFreshTable } from '../helpers/dynalite';
import type { ProxiedCall } from '../helpers/fault-proxy';
import { generatedStructure, pseudoRandomText } from './structures';

const table = useFreshTable();

const T0 = new Date('2026-03-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

/** ULIDs whose random part is fixed, so ids are the same on every run and still sort by time. */
const fixedIds = () => monotonicFactory(() => 0.5);
/** An id of its own for `n` (0..31), at T0. */
const idOf = (n: number) => monotonicFactory(() => n / 32)(T0.getTime());

function storeWith(
  options: {
    chunkBytes?: number;
    maxStoredBytes?: number;
    doc?: DynamoDBDocumentClient;
    quotas?: OwnerQuotas;
    newId?: (timeMs: number) => string;
  } = {},
) {
  return new DynamoSystemStore({ doc: table.doc, tableName: table.tableName, newId: fixedIds(), ...options });
}

const newSystem = (owner = 'alice', name = 'shop', structure: object = WORKED_EXAMPLE) => ({
  owner,
  name,
  url: 'https://api.example.com/structure',
  structure: structure as typeof WORKED_EXAMPLE,
});

/** Every item of one partition, as DynamoDB holds it (attribute-value JSON). */
async function partition(pk: string) {
  const { Items = [] } = await table.client.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: pk } },
      ConsistentRead: true,
    }),
  );
  return Items;
}

async function rawHead(owner: string, id: string) {
  const { Item } = await table.client.send(
    new GetItemCommand({
      TableName: table.tableName,
      Key: { pk: { S: `OWNER#${owner}` }, sk: { S: `SYSTEM#${id}` } },
      ConsistentRead: true,
    }),
  );
  return Item;
}

/** A doc client that behaves like `table.doc` except where `intercept` answers instead. */
function docWith(intercept: (command: { input: Record<string, unknown> }) => Promise<unknown> | undefined) {
  return new Proxy(table.doc, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return (command: { input: Record<string, unknown> }) =>
        intercept(command) ?? target.send(command as Parameters<typeof target.send>[0]);
    },
  });
}

describe('create and get', () => {
  // A registered structure fits in the head item and comes back as exactly the same JSON.
  it('stores a small structure inline and reads back the same record and JSON', async () => {
    const structure = {
      ...WORKED_EXAMPLE,
      version: 'v2',
      nodes: [...WORKED_EXAMPLE.nodes, { id: 'D', x: [1] }],
    };
    const json = JSON.stringify(structure);
    const store = storeWith();
    const record = await store.create(newSystem('alice', '  shop  ', structure), T0);
    expect(record).toEqual({
      id: monotonicFactory(() => 0.5)(T0.getTime()),
      owner: 'alice',
      name: 'shop',
      url: 'https://api.example.com/structure',
      nodes: 4,
      dependencies: 3,
      createdAt: '2026-03-01T12:00:00.000Z',
      sha256: createHash('sha256').update(json).digest('hex'),
    });
    const read = await store.get('alice', record.id);
    expect(read?.record).toEqual(record);
    expect(JSON.stringify(read?.structure)).toBe(json);

    const head = await rawHead('alice', record.id);
    expect(head).toMatchObject({
      chunkCount: { N: '0' },
      encoding: { S: 'br' },
      structure: { B: expect.anything() },
    });
    expect(await partition(`SYSTEM#${record.id}`)).toEqual([]);
  });

  // The same path as a structure at the limits, on a structure small enough to look at.
  it('splits the compressed bytes over chunk items when they exceed the chunk size', async () => {
    const store = storeWith({ chunkBytes: 64 });
    const record = await store.create(newSystem(), T0);
    const head = await rawHead('alice', record.id);
    const byteLength = Number(head?.byteLength?.N);
    const chunkCount = Number(head?.chunkCount?.N);
    expect(chunkCount).toBe(Math.ceil(byteLength / 64));
    expect(chunkCount).toBeGreaterThan(1);
    expect(head?.structure).toBeUndefined();
    const chunks = await partition(`SYSTEM#${record.id}`);
    expect(chunks.map((item) => item.sk?.S)).toEqual(
      Array.from({ length: chunkCount }, (_, index) => `CHUNK#${String(index).padStart(5, '0')}`),
    );
    expect(chunks.every((item) => item.owner?.S === 'alice')).toBe(true);
    expect(JSON.stringify((await store.get('alice', record.id))?.structure)).toBe(
      JSON.stringify(WORKED_EXAMPLE),
    );
  });

  // A listing or a 404 check needs the record only, not the structure behind it.
  it('reads a record without its structure', async () => {
    const store = storeWith({ chunkBytes: 64 });
    const record = await store.create(newSystem(), T0);
    expect(await store.getRecord('alice', record.id)).toEqual(record);
  });

  // Bad arguments are refused before anything is written, naming the field and not the value.
  it('refuses a bad owner, name, url or structure, naming the field', async () => {
    const store = storeWith();
    const longUrl = `https://example.com/${'x'.repeat(2100)}`;
    const cases = [
      [{ ...newSystem(), owner: 'has space' }, 'owner'],
      [{ ...newSystem(), owner: 'OWNER#bob' }, 'owner'],
      [{ ...newSystem(), name: '   ' }, 'name'],
      [{ ...newSystem(), name: 'tab\there' }, 'name'],
      [{ ...newSystem(), name: 'x'.repeat(101) }, 'name'],
      [{ ...newSystem(), url: '' }, 'url'],
      [{ ...newSystem(), url: longUrl }, 'url'],
      [{ ...newSystem(), structure: { nodes: [] } }, 'structure'],
      [{ ...newSystem(), structure: [] }, 'structure'],
    ] as const;
    for (const [input, field] of cases) {
      const error = await store
        .create(input as ReturnType<typeof newSystem>)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SystemInputError);
      expect(error).toMatchObject({ field });
      expect((error as Error).message).not.toContain('xxxxxxxx');
    }
    expect(await partition('OWNER#alice')).toEqual([]);
  });

  // Past the size bound nothing is written, so a route can answer 413 with a clean table.
  it('refuses a structure too large to store before writing anything', async () => {
    const store = storeWith({ chunkBytes: 100, maxStoredBytes: 1000 });
    const big = generatedStructure(300, 600);
    await expect(store.create(newSystem('alice', 'big', big), T0)).rejects.toMatchObject({
      name: 'SystemInputError',
      field: 'structure',
    });
    expect(await partition('OWNER#alice')).toEqual([]);
  });
});

describe('owners', () => {
  // Bob cannot tell Alice's system from one that does not exist, whatever he tries.
  it('answers another owner exactly as for a missing id', async () => {
    const store = storeWith({ chunkBytes: 64 });
    const record = await store.create(newSystem('alice'), T0);
    const unknownId = monotonicFactory(() => 0.25)(T0.getTime());
    for (const id of [record.id, unknownId, 'not-a-ulid', record.id.toLowerCase(), '']) {
      expect(await store.get('bob', id)).toBeUndefined();
      expect(await store.getRecord('bob', id)).toBeUndefined();
      expect(await store.delete('bob', id)).toBe(false);
    }
    expect(await store.get('alice', unknownId)).toBeUndefined();
    expect(await store.get('alice', 'not-a-ulid')).toBeUndefined();
    expect(await store.list('bob')).toEqual({ systems: [] });
    expect((await store.get('alice', record.id))?.record).toEqual(record);
  });
});

describe('list', () => {
  // Five systems in pages of two: newest first, each exactly once, and no cursor after the last.
  it('lists the owner systems newest first, page by page', async () => {
    const store = storeWith();
    for (const [index, name] of ['a', 'b', 'c', 'd', 'e'].entries()) {
      await store.create(newSystem('alice', name), at(index));
    }
    await store.create(newSystem('bob', 'not alice'), at(9));
    // The owner's partition also holds API key index entries; they are not systems.
    await table.doc.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { pk: 'OWNER#alice', sk: 'APIKEY#abc', digest: 'x' },
      }),
    );
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list('alice', { limit: 2, ...(cursor === undefined ? {} : { cursor }) });
      pages.push(page.systems.map((record) => record.name));
      cursor = page.cursor;
    } while (cursor !== undefined);
    expect(pages).toEqual([['e', 'd'], ['c', 'b'], ['a']]);
    expect((await store.list('alice')).systems.map((record) => record.createdAt)).toEqual(
      [4, 3, 2, 1, 0].map((seconds) => at(seconds).toISOString()),
    );
  });

  // Four systems in pages of two end after two pages: no empty third page to fetch.
  it('gives no cursor when a page ends the listing exactly', async () => {
    const store = storeWith();
    for (let index = 0; index < 4; index++) await store.create(newSystem('alice', `s${index}`), at(index));
    const first = await store.list('alice', { limit: 2 });
    const second = await store.list('alice', { limit: 2, cursor: first.cursor! });
    expect(second.systems.map((record) => record.name)).toEqual(['s1', 's0']);
    expect(second.cursor).toBeUndefined();
  });

  // A Query reads at most 1 MB, inline structures included: a page is filled over several Queries.
  it('fills a page of systems whose inline structures exceed 1 MB together', async () => {
    let queries = 0;
    const doc = docWith((command) => {
      if (command instanceof QueryCommandForDoc) queries++;
      return undefined;
    });
    const store = storeWith({ doc });
    for (let index = 0; index < 5; index++) {
      // About 260 KB even compressed: pseudo-random text leaves brotli little to find.
      const structure = { nodes: [], dependencies: [], notes: pseudoRandomText(350_000, index) };
      await store.create(newSystem('alice', `large ${index}`, structure), at(index));
    }
    const page = await store.list('alice', { limit: 5 });
    expect(page.systems.map((record) => record.name)).toEqual([
      'large 4',
      'large 3',
      'large 2',
      'large 1',
      'large 0',
    ]);
    expect(page.cursor).toBeUndefined();
    expect(queries).toBeGreaterThan(1);
    for (const record of page.systems) {
      expect((await rawHead('alice', record.id))?.chunkCount).toEqual({ N: '0' });
    }
  });

  it('refuses a limit outside 1..100', async () => {
    const store = storeWith();
    for (const limit of [0, 101, 2.5, Number.NaN, -1]) {
      await expect(store.list('alice', { limit })).rejects.toMatchObject({
        name: 'SystemInputError',
        field: 'limit',
      });
    }
    expect(await store.list('alice', { limit: 100 })).toEqual({ systems: [] });
  });

  // A cursor is only ever a place in the caller's own listing.
  it('refuses a cursor that is garbage or points into another owner partition', async () => {
    const store = storeWith();
    for (let index = 0; index < 3; index++) await store.create(newSystem('bob', `b${index}`), at(index));
    const bobsCursor = (await store.list('bob', { limit: 1 })).cursor!;
    const forge = (key: object) => Buffer.from(JSON.stringify(key)).toString('base64url');
    const bobsId = (await store.list('bob', { limit: 1 })).systems[0]!.id;
    const forged = [
      'garbage!',
      '',
      bobsCursor,
      forge({ pk: 'OWNER#alice', sk: 'APIKEY#abc' }),
      forge({ pk: 'OWNER#alice', sk: `SYSTEM#${bobsId}`, extra: 1 }),
      forge({ pk: 'SYSTEM#x', sk: 'CHUNK#00000' }),
      forge(['OWNER#alice', `SYSTEM#${bobsId}`]),
      Buffer.from('not json').toString('base64url'),
    ];
    for (const cursor of forged) {
      const error = await store.list('alice', { cursor }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SystemInputError);
      expect(error).toMatchObject({ field: 'cursor' });
      expect((error as Error).message).not.toContain('bob');
    }
    // The same cursor is fine for its owner.
    expect((await store.list('bob', { limit: 1, cursor: bobsCursor })).systems).toHaveLength(1);
  });
});

describe('delete', () => {
  // Deleting takes the head first (the system is gone at once), then every chunk, in batches of 25.
  it('removes the head and all chunks, and only those', async () => {
    const store = storeWith({ chunkBytes: 2 });
    const record = await store.create(newSystem('alice', 'doomed'), T0);
    const kept = await store.create(newSystem('alice', 'kept'), at(1));
    expect((await partition(`SYSTEM#${record.id}`)).length).toBeGreaterThan(25);

    expect(await store.delete('alice', record.id)).toBe(true);
    expect(await rawHead('alice', record.id)).toBeUndefined();
    expect(await partition(`SYSTEM#${record.id}`)).toEqual([]);
    expect(await store.get('alice', record.id)).toBeUndefined();
    expect(await store.delete('alice', record.id)).toBe(false);
    expect((await store.get('alice', kept.id))?.record.name).toBe('kept');
  });

  // Under load DynamoDB may process only part of a batch; the rest is sent again.
  it('retries the chunk deletes DynamoDB leaves unprocessed', async () => {
    let withheld = 0;
    const doc = docWith((command) => {
      if (!(command instanceof BatchWriteCommand)) return undefined;
      const requests = command.input.RequestItems?.[table.tableName] ?? [];
      if (withheld > 0 || requests.length < 2) return undefined;
      const processed = requests.slice(0, 1);
      const unprocessed = requests.slice(1);
      withheld = unprocessed.length;
      return table.doc
        .send(new BatchWriteCommand({ RequestItems: { [table.tableName]: processed } }))
        .then(() => ({ UnprocessedItems: { [table.tableName]: unprocessed } }));
    });
    const store = storeWith({ chunkBytes: 16, doc });
    const record = await store.create(newSystem(), T0);
    expect(await store.delete('alice', record.id)).toBe(true);
    expect(withheld).toBeGreaterThan(0);
    expect(await partition(`SYSTEM#${record.id}`)).toEqual([]);
  });
});

describe('failures', () => {
  // The head is written last: when that write fails, nothing shows, and the chunks written
  // before it are removed before the caller hears of the failure.
  it('shows nothing of a system whose head write failed, and leaves no chunk', async () => {
    let headId: string | undefined;
    const doc = docWith((command) => {
      const item = command.input.Item as Record<string, unknown> | undefined;
      if (!(command instanceof PutCommand) || !String(item?.sk).startsWith('SYSTEM#')) return undefined;
      headId = String(item?.id);
      return Promise.reject(new Error('simulated failure of the head write'));
    });
    const failing = storeWith({ chunkBytes: 32, doc });
    await expect(failing.create(newSystem(), T0)).rejects.toThrow('simulated failure of the head write');

    expect(await partition(`SYSTEM#${headId}`)).toEqual([]);
    const store = storeWith();
    expect(await store.get('alice', headId!)).toBeUndefined();
    expect(await store.getRecord('alice', headId!)).toBeUndefined();
    expect(await store.list('alice')).toEqual({ systems: [] });
    expect(await partition('OWNER#alice')).toEqual([]);
  });

  // A chunk that fails to write stops the create before the head, with nothing visible.
  it('writes no head when a chunk write fails', async () => {
    const doc = docWith((command) => {
      const item = command.input.Item as Record<string, unknown> | undefined;
      return command instanceof PutCommand && item?.sk === 'CHUNK#00002'
        ? Promise.reject(new Error('simulated failure of a chunk write'))
        : undefined;
    });
    await expect(storeWith({ chunkBytes: 32, doc }).create(newSystem(), T0)).rejects.toThrow(
      'simulated failure of a chunk write',
    );
    expect(await partition('OWNER#alice')).toEqual([]);
  });
});

describe('corrupted storage', () => {
  async function chunkedSystem() {
    const store = storeWith({ chunkBytes: 16 });
    const record = await store.create(newSystem(), T0);
    const chunkKey = (index: number) => ({
      pk: { S: `SYSTEM#${record.id}` },
      sk: { S: `CHUNK#${String(index).padStart(5, '0')}` },
    });
    return { store, record, chunkKey, chunkCount: (await partition(`SYSTEM#${record.id}`)).length };
  }

  // A chunk whose bytes changed is caught by the hash (or by brotli itself), not returned.
  it('detects an altered chunk', async () => {
    const { store, record, chunkKey } = await chunkedSystem();
    const [chunk] = (await partition(`SYSTEM#${record.id}`)).filter((item) => item.sk?.S === 'CHUNK#00001');
    const altered = Buffer.from(chunk!.data!.B!);
    altered[5] = altered[5]! ^ 0x01;
    await table.client.send(
      new PutItemCommand({ TableName: table.tableName, Item: { ...chunkKey(1), data: { B: altered } } }),
    );
    await expect(store.get('alice', record.id)).rejects.toThrow(SystemStorageError);
  });

  // A gap in the chunks, or a missing last chunk, is caught by the order and the count.
  it('detects a missing chunk', async () => {
    const { store, record, chunkKey, chunkCount } = await chunkedSystem();
    expect(chunkCount).toBeGreaterThan(3);
    await table.client.send(
      new DeleteItemCommand({ TableName: table.tableName, Key: chunkKey(chunkCount - 1) }),
    );
    await expect(store.get('alice', record.id)).rejects.toThrow(
      `${chunkCount - 1} chunks found, the head records ${chunkCount}`,
    );
    await table.client.send(new DeleteItemCommand({ TableName: table.tableName, Key: chunkKey(1) }));
    await expect(store.get('alice', record.id)).rejects.toThrow(
      'expected chunk CHUNK#00001, found CHUNK#00002',
    );
  });

  // An inline structure edited in place fails its SHA-256 like a chunk would.
  it('detects an altered inline structure and a hand-edited head', async () => {
    const store = storeWith();
    const record = await store.create(newSystem(), T0);
    const head = (await rawHead('alice', record.id))!;
    const replaced = Buffer.from(
      (await import('node:zlib')).brotliCompressSync(JSON.stringify({ ...WORKED_EXAMPLE, nodes: [] })),
    );
    await table.client.send(
      new PutItemCommand({
        TableName: table.tableName,
        Item: { ...head, structure: { B: replaced }, byteLength: { N: String(replaced.length) } },
      }),
    );
    await expect(store.get('alice', record.id)).rejects.toThrow(/does not match its SHA-256/);

    await table.client.send(
      new PutItemCommand({ TableName: table.tableName, Item: { ...head, nodes: { N: '99' } } }),
    );
    await expect(store.get('alice', record.id)).rejects.toThrow(/does not have the recorded counts/);

    await table.client.send(
      new PutItemCommand({ TableName: table.tableName, Item: { ...head, nodes: { S: 'three' } } }),
    );
    await expect(store.getRecord('alice', record.id)).rejects.toThrow(/missing the count "nodes"/);
    await expect(store.list('alice')).rejects.toThrow(SystemStorageError);
  });
});

/** The sort keys of a system's chunk partition, in order. */
const chunkKeys = async (id: string) => (await partition(`SYSTEM#${id}`)).map((item) => item.sk?.S);

/** Holds back the first command `matches` picks until `release` is called. */
function holdingDoc(matches: (command: { input: Record<string, unknown> }) => boolean) {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reached: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    reached = resolve;
  });
  let done = false;
  const doc = docWith((command) => {
    if (done || !matches(command)) return undefined;
    done = true;
    reached();
    return gate.then(() => table.doc.send(command as Parameters<typeof table.doc.send>[0]));
  });
  return { doc, held, release };
}

const isRefreshHeadWrite = (command: { input: Record<string, unknown> }) =>
  command instanceof UpdateCommand && String(command.input.ConditionExpression).includes('#version');

describe('replace', () => {
  // Version 2's chunks are written beside version 1's, the head switches, version 1's go; the
  // record keeps what the refresh does not change and takes the new format and unit.
  it('refreshes into a new version beside the old, then removes the old', async () => {
    const store = storeWith({ chunkBytes: 64 });
    const settings = { defaultCapacity: 4 };
    const readOptions = { window: 300, labels: { from: 'a', to: 'b' } };
    const record = await store.create(
      { ...newSystem(), format: 'native', unit: 'day', settings, readOptions },
      T0,
    );
    expect(record.readOptions).toEqual(readOptions);
    expect((await rawHead('alice', record.id))?.readOptions).toEqual({ S: JSON.stringify(readOptions) });
    expect(await chunkKeys(record.id)).toEqual(expect.arrayContaining(['CHUNK#00000', 'CHUNK#00001']));

    const grown = generatedStructure(20, 30);
    const second = await store.replace('alice', record.id, { structure: grown, format: 'openapi' }, at(60));
    const { unit: _unit, ...kept } = record;
    // No unit given: the refreshed record has none. The read options are the registration's.
    expect(second).toEqual({
      ...kept,
      nodes: 20,
      dependencies: 30,
      sha256: createHash('sha256').update(JSON.stringify(grown)).digest('hex'),
      format: 'openapi',
      version: 2,
      refreshedAt: at(60).toISOString(),
    });
    expect((await store.get('alice', record.id))?.record).toEqual(second);
    expect((await store.get('alice', record.id))?.structure).toEqual(grown);
    const head = await rawHead('alice', record.id);
    expect(head?.unit).toBeUndefined();
    expect(head?.chunkVersion).toBeUndefined();
    const secondChunks = await chunkKeys(record.id);
    expect(secondChunks.length).toBe(Number(head?.chunkCount?.N));
    expect(secondChunks.every((sk) => sk?.startsWith('CHUNK#v2#'))).toBe(true);

    // The third version is small enough to go inline: version 2's chunks go and none come.
    const tiny = { nodes: [{ id: 'A' }], dependencies: [] };
    const third = await store.replace('alice', record.id, { structure: tiny, unit: 'hour' }, at(120));
    expect(third).toMatchObject({ version: 3, unit: 'hour', settings, createdAt: T0.toISOString() });
    expect(third?.format).toBeUndefined();
    expect(await chunkKeys(record.id)).toEqual([]);
    expect((await rawHead('alice', record.id))?.chunkCount).toEqual({ N: '0' });

    // And from inline back to chunks, under version 4's keys.
    await store.replace('alice', record.id, { structure: grown }, at(180));
    expect((await chunkKeys(record.id))[0]).toBe('CHUNK#v4#00000');
    expect((await store.get('alice', record.id))?.structure).toEqual(grown);
  });

  // Nothing to refresh is `undefined`; a bad structure is refused before anything is written.
  it('finds no system it cannot read, and refuses a structure before writing', async () => {
    const store = storeWith({ chunkBytes: 64, maxStoredBytes: 1000 });
    const record = await store.create(newSystem(), T0);
    expect(await store.replace('bob', record.id, { structure: WORKED_EXAMPLE })).toBeUndefined();
    expect(await store.replace('alice', 'not-a-ulid', { structure: WORKED_EXAMPLE })).toBeUndefined();
    const before = await partition(`SYSTEM#${record.id}`);
    for (const structure of [generatedStructure(300, 600), { nodes: [] }]) {
      await expect(
        store.replace('alice', record.id, { structure: structure as typeof WORKED_EXAMPLE }),
      ).rejects.toMatchObject({ name: 'SystemInputError', field: 'structure' });
    }
    expect(await partition(`SYSTEM#${record.id}`)).toEqual(before);
    expect((await store.get('alice', record.id))?.record).toEqual(record);
  });

  // Two refreshes read version 1. The first is held at its head write while the second writes
  // (its chunk keys of version 2 are the first's, so it writes version 3's) and lands; the first
  // then loses, its chunks go, and the system is the winner's, whole.
  it('lets one of two refreshes win whole, the other removing its chunks', async () => {
    const store = storeWith({ chunkBytes: 64 });
    const record = await store.create(newSystem(), T0);
    const slow = holdingDoc(isRefreshHeadWrite);
    const loser = storeWith({ chunkBytes: 64, doc: slow.doc }).replace('alice', record.id, {
      structure: generatedStructure(10, 12, 1),
    });
    await slow.held;
    const winner = generatedStructure(30, 40, 2);
    expect(await store.replace('alice', record.id, { structure: winner })).toMatchObject({ version: 2 });
    slow.release();
    await expect(loser).rejects.toThrow(
      new SystemChangedError(`system ${record.id} was deleted or refreshed meanwhile; nothing was replaced`),
    );
    expect((await store.get('alice', record.id))?.structure).toEqual(winner);
    expect((await rawHead('alice', record.id))?.chunkVersion).toEqual({ N: '3' });
    const keys = await chunkKeys(record.id);
    expect(keys.length).toBeGreaterThan(2);
    expect(keys.every((sk) => sk?.startsWith('CHUNK#v3#'))).toBe(true);
  });

  // The system was deleted between the read and the head write: nothing comes back to life.
  it('refuses to refresh a system deleted meanwhile, leaving nothing', async () => {
    const store = storeWith({ chunkBytes: 64 });
    const record = await store.create(newSystem(), T0);
    const slow = holdingDoc(isRefreshHeadWrite);
    const refresh = storeWith({ chunkBytes: 64, doc: slow.doc }).replace('alice', record.id, {
      structure: generatedStructure(10, 12),
    });
    await slow.held;
    expect(await store.delete('alice', record.id)).toBe(true);
    slow.release();
    await expect(refresh).rejects.toBeInstanceOf(SystemChangedError);
    expect(await partition(`SYSTEM#${record.id}`)).toEqual([]);
    expect(await partition('OWNER#alice')).toEqual([]);
  });

  // A refresh that began from version 1 and fetched slowly: another refresh finished meanwhile
  // (its 200 acknowledged version 2). The slow one's older fetch must not replace it, though the
  // head it reads at its own replace is version 2 throughout; nor may it answer "not found" for
  // a system deleted while it fetched.
  it('replaces only the version a refresh began from', async () => {
    const store = storeWith({ chunkBytes: 64 });
    const record = await store.create(newSystem(), T0);
    const newer = generatedStructure(30, 40, 2);
    expect(await store.replace('alice', record.id, { structure: newer })).toMatchObject({ version: 2 });
    await expect(
      store.replace('alice', record.id, { structure: generatedStructure(10, 12, 1), replacing: 1 }),
    ).rejects.toThrow(
      new SystemChangedError(`system ${record.id} was refreshed meanwhile; nothing was replaced`),
    );
    const kept = await store.get('alice', record.id);
    expect(kept?.structure).toEqual(newer);
    expect(kept?.record.version).toBe(2);
    // From the version it read, it replaces as before.
    expect(
      await store.replace('alice', record.id, { structure: WORKED_EXAMPLE, replacing: 2 }),
    ).toMatchObject({
      version: 3,
    });
    expect(await store.delete('alice', record.id)).toBe(true);
    await expect(
      store.replace('alice', record.id, { structure: WORKED_EXAMPLE, replacing: 3 }),
    ).rejects.toThrow(
      new SystemChangedError(`system ${record.id} was deleted meanwhile; nothing was replaced`),
    );
    expect(await store.replace('alice', record.id, { structure: WORKED_EXAMPLE })).toBeUndefined();
  });

  // A read that has the head of version 1 when a refresh switches it and removes version 1's
  // chunks: its chunk query finds none. It reads the head again and answers with the new
  // structure, never a 500; after a delete in the same gap, "not found".
  it('reads the new structure when a refresh lands between the head and its chunks', async () => {
    const isChunkQuery = (command: { input: Record<string, unknown> }) =>
      command instanceof QueryCommandForDoc && JSON.stringify(command.input).includes('CHUNK');
    const store = storeWith({ chunkBytes: 64 });
    const record = await store.create(newSystem(), T0);
    const held = holdingDoc(isChunkQuery);
    const read = storeWith({ chunkBytes: 64, doc: held.doc }).get('alice', record.id);
    await held.held;
    const refreshed = generatedStructure(10, 12, 3);
    await store.replace('alice', record.id, { structure: refreshed });
    held.release();
    const seen = await read;
    expect(seen?.structure).toEqual(refreshed);
    expect(seen?.record.version).toBe(2);

    const heldAgain = holdingDoc(isChunkQuery);
    const readAgain = storeWith({ chunkBytes: 64, doc: heldAgain.doc }).get('alice', record.id);
    await heldAgain.held;
    expect(await store.delete('alice', record.id)).toBe(true);
    heldAgain.release();
    expect(await readAgain).toBeUndefined();
  });

  // A refresh whose head write failed (a 503 to the caller) leaves its chunks under version 2's
  // keys until the sweep. Trying again right away works: it writes version 3's keys, and the
  // head says so; readers and the next refresh follow it.
  it('refreshes again after a refresh that failed, past its leftover chunks', async () => {
    const store = storeWith({ chunkBytes: 64 });
    const record = await store.create(newSystem(), T0);
    const failing = docWith((command) =>
      isRefreshHeadWrite(command) ? Promise.reject(new Error('the head write failed')) : undefined,
    );
    await expect(
      storeWith({ chunkBytes: 64, doc: failing }).replace('alice', record.id, {
        structure: generatedStructure(10, 12, 1),
      }),
    ).rejects.toThrow('the head write failed');
    const leftovers = (await chunkKeys(record.id)).filter((sk) => sk?.startsWith('CHUNK#v2#'));
    expect(leftovers.length).toBeGreaterThan(0);

    const retried = generatedStructure(10, 12, 2);
    expect(await store.replace('alice', record.id, { structure: retried })).toMatchObject({ version: 2 });
    expect((await rawHead('alice', record.id))?.chunkVersion).toEqual({ N: '3' });
    expect((await store.get('alice', record.id))?.structure).toEqual(retried);
    // Version 1's chunks went; the leftovers stay for the sweep.
    expect((await chunkKeys(record.id)).filter((sk) => !sk?.startsWith('CHUNK#v3#'))).toEqual(leftovers);

    // The next refresh writes after version 3's keys and removes them.
    expect(await store.replace('alice', record.id, { structure: WORKED_EXAMPLE })).toMatchObject({
      version: 3,
    });
    expect((await rawHead('alice', record.id))?.chunkVersion).toEqual({ N: '4' });
    expect((await store.get('alice', record.id))?.structure).toEqual(WORKED_EXAMPLE);
    expect((await chunkKeys(record.id)).filter((sk) => !sk?.startsWith('CHUNK#v4#'))).toEqual(leftovers);
    // A delete removes the chunks the head reads.
    expect(await store.delete('alice', record.id)).toBe(true);
    expect(await chunkKeys(record.id)).toEqual(leftovers);
  });

  // Sixteen chunk versions taken in a row is more than failures explain: the refresh stops with a
  // busy error (a 503) and takes back what it wrote; fifteen are still skipped.
  it('tries sixteen chunk versions before giving up', async () => {
    const store = storeWith({ chunkBytes: 64 });
    const record = await store.create(newSystem(), T0);
    const takeVersions = (from: number, to: number) =>
      Promise.all(
        Array.from({ length: to - from + 1 }, (_, offset) =>
          table.doc.send(
            new PutCommand({
              TableName: table.tableName,
              Item: { pk: `SYSTEM#${record.id}`, sk: `CHUNK#v${from + offset}#00000`, owner: 'alice' },
            }),
          ),
        ),
      );
    await takeVersions(2, 17);
    const before = await chunkKeys(record.id);
    await expect(
      store.replace('alice', record.id, { structure: generatedStructure(10, 12) }),
    ).rejects.toThrow(`system ${record.id}: chunk versions 2 to 17 are all taken; nothing was replaced`);
    expect(await chunkKeys(record.id)).toEqual(before);
    expect((await store.get('alice', record.id))?.structure).toEqual(WORKED_EXAMPLE);

    await table.doc.send(
      new BatchWriteCommand({
        RequestItems: {
          [table.tableName]: [
            { DeleteRequest: { Key: { pk: `SYSTEM#${record.id}`, sk: 'CHUNK#v17#00000' } } },
          ],
        },
      }),
    );
    await store.replace('alice', record.id, { structure: generatedStructure(10, 12) });
    expect((await rawHead('alice', record.id))?.chunkVersion).toEqual({ N: '17' });
  });
});

describe('settings', () => {
  // The lost update users met: a refresh reads the head, a PATCH lands, the refresh writes. Each
  // writes only its own attributes, so the refresh's answer and the head hold the PATCH's settings.
  it('keeps a PATCH that lands while a refresh is held before its head write', async () => {
    const store = storeWith({ chunkBytes: 64 });
    const record = await store.create({ ...newSystem(), settings: { defaultCapacity: 1 } }, T0);
    const slow = holdingDoc(isRefreshHeadWrite);
    const refreshed = generatedStructure(10, 12, 1);
    const refresh = storeWith({ chunkBytes: 64, doc: slow.doc }).replace('alice', record.id, {
      structure: refreshed,
    });
    await slow.held;
    const patched = await store.updateSettings('alice', record.id, { defaultCapacity: 1100 });
    expect(patched).toMatchObject({ settings: { defaultCapacity: 1100 }, settingsRevision: 1 });
    expect(patched).not.toHaveProperty('version');
    slow.release();
    expect(await refresh).toMatchObject({
      version: 2,
      settings: { defaultCapacity: 1100 },
      settingsRevision: 1,
    });
    const stored = await store.get('alice', record.id);
    expect(stored?.record).toMatchObject({ version: 2, settings: { defaultCapacity: 1100 } });
    expect(stored?.structure).toEqual(refreshed);
  });

  // And the other way round: a PATCH held before its write while a refresh lands keeps both.
  it('keeps a refresh that lands while a PATCH is held before its write', async () => {
    const store = storeWith({ chunkBytes: 64 });
    const record = await store.create(newSystem(), T0);
    const slow = holdingDoc((command) => command instanceof UpdateCommand);
    const patch = storeWith({ doc: slow.doc }).updateSettings('alice', record.id, { defaultCapacity: 7 });
    await slow.held;
    const refreshed = generatedStructure(10, 12, 2);
    await store.replace('alice', record.id, { structure: refreshed });
    slow.release();
    expect(await patch).toMatchObject({ version: 2, settings: { defaultCapacity: 7 } });
    expect((await store.get('alice', record.id))?.structure).toEqual(refreshed);
  });

  // If-Match: a write on revision n applies only while the settings are revision n (absent: 0);
  // a stale one writes nothing. Without a revision the last write wins.
  it('writes on a revision only while the settings are still that revision', async () => {
    const store = storeWith();
    const record = await store.create(newSystem(), T0);
    expect(
      await store.updateSettings('alice', record.id, { defaultCapacity: 2 }, { revision: 0 }),
    ).toMatchObject({
      settingsRevision: 1,
    });
    await expect(
      store.updateSettings('alice', record.id, { defaultCapacity: 3 }, { revision: 0 }),
    ).rejects.toBeInstanceOf(SettingsChangedError);
    await expect(store.updateSettings('alice', record.id, undefined, { revision: 7 })).rejects.toBeInstanceOf(
      SettingsChangedError,
    );
    expect((await store.getRecord('alice', record.id))?.settings).toEqual({ defaultCapacity: 2 });
    const cleared = await store.updateSettings('alice', record.id, undefined, { revision: 1 });
    expect(cleared).toMatchObject({ settingsRevision: 2 });
    expect(cleared).not.toHaveProperty('settings');
    expect(await store.updateSettings('alice', record.id, { defaultCapacity: 4 })).toMatchObject({
      settings: { defaultCapacity: 4 },
      settingsRevision: 3,
    });
    // Gone, or never there: nothing to write, and no item is made.
    expect(await store.delete('alice', record.id)).toBe(true);
    expect(await store.updateSettings('alice', record.id, { defaultCapacity: 5 })).toBeUndefined();
    expect(await store.updateSettings('alice', record.id, undefined, { revision: 3 })).toBeUndefined();
    expect(await store.updateSettings('bob', record.id, { defaultCapacity: 5 })).toBeUndefined();
    expect(await store.updateSettings('alice', 'not-a-ulid', { defaultCapacity: 5 })).toBeUndefined();
    expect(await partition('OWNER#alice')).toEqual([]);
  });

  // Settings are checked against a structure, then written: with the version they were checked
  // against, a refresh landing in between fails the write (SystemChangedError), nothing written.
  it('writes settings only onto the structure version they name', async () => {
    const store = storeWith();
    const record = await store.create(newSystem(), T0);
    expect(
      await store.updateSettings('alice', record.id, { defaultCapacity: 2 }, { structureVersion: 1 }),
    ).toMatchObject({ settings: { defaultCapacity: 2 } });
    await store.replace('alice', record.id, { structure: newSystem().structure }, at(60));
    await expect(
      store.updateSettings('alice', record.id, { defaultCapacity: 3 }, { structureVersion: 1 }),
    ).rejects.toBeInstanceOf(SystemChangedError);
    expect((await store.getRecord('alice', record.id))?.settings).toEqual({ defaultCapacity: 2 });
    expect(
      await store.updateSettings(
        'alice',
        record.id,
        { defaultCapacity: 4 },
        { revision: 1, structureVersion: 2 },
      ),
    ).toMatchObject({ settings: { defaultCapacity: 4 }, version: 2, settingsRevision: 2 });
    // A stale revision on the right version is still the settings' own error.
    await expect(
      store.updateSettings('alice', record.id, { defaultCapacity: 5 }, { revision: 1, structureVersion: 2 }),
    ).rejects.toBeInstanceOf(SettingsChangedError);
  });

  // The head write is applied but every answer is lost (a 500 each time, the retries never
  // reaching DynamoDB): the create reads the head, finds its own, and has succeeded.
  it('answers a create whose head landed though every attempt failed', async () => {
    const proxied = await throughFaultProxy(table);
    try {
      proxied.proxy.reset((call, attempt) =>
        call.operation === 'PutItem' && String(call.body.Item.sk.S).startsWith('SYSTEM#')
          ? { kind: attempt === 1 ? 'appliedThenError' : 'error', error: 'InternalServerError' }
          : undefined,
      );
      const record = await storeWith({ chunkBytes: 64, doc: proxied.doc }).create(newSystem(), T0);
      expect((await storeWith().get('alice', record.id))?.structure).toEqual(WORKED_EXAMPLE);
      expect((await chunkKeys(record.id)).length).toBeGreaterThan(1);
    } finally {
      await proxied.close();
    }
  });

  // A chunk write is applied but every answer is lost, so the create does not know it wrote that
  // chunk: it removes every chunk key of its new id all the same, and nothing is left behind.
  it('removes a chunk it wrote without knowing, when the create fails', async () => {
    const proxied = await throughFaultProxy(table);
    try {
      proxied.proxy.reset((call, attempt) =>
        call.operation === 'PutItem' && call.body.Item.sk.S === 'CHUNK#00001'
          ? { kind: attempt === 1 ? 'appliedThenError' : 'error', error: 'InternalServerError' }
          : undefined,
      );
      await expect(storeWith({ chunkBytes: 64, doc: proxied.doc }).create(newSystem(), T0)).rejects.toThrow();
      expect(await chunkKeys(fixedIds()(T0.getTime()))).toEqual([]);
    } finally {
      await proxied.close();
    }
  });

  // Another PATCH wrote the very same settings first: this one's If-Match is stale all the same.
  it('refuses a stale revision even when the settings are the same', async () => {
    const store = storeWith();
    const record = await store.create(newSystem(), T0);
    await store.updateSettings('alice', record.id, { defaultCapacity: 2 });
    await expect(
      store.updateSettings('alice', record.id, { defaultCapacity: 2 }, { revision: 0 }),
    ).rejects.toThrow(`system ${record.id}: its settings are no longer revision 0; nothing was written`);
    expect((await store.getRecord('alice', record.id))?.settingsRevision).toBe(1);
  });

  // Every double the engine takes inline is stored exactly (DynamoDB numbers stop at 38 digits
  // and 1e-130; the SDK refuses integers past 2^53), and every id stays a key.
  it('stores every double and every node id exactly', async () => {
    const store = storeWith();
    const settings = JSON.parse(
      '{"defaultCapacity":1e+308,"nodes":{"__proto__":{"capacity":9007199254740994},' +
        '"constructor":{"arrival":1e-300},"toString":{"capacity":5e-324,"arrival":1.7976931348623157e+308}}}',
    );
    const record = await store.create({ ...newSystem(), settings }, T0);
    const text = JSON.stringify(settings);
    expect(JSON.stringify((await store.get('alice', record.id))?.record.settings)).toBe(text);
    const again = { ...settings, defaultCapacity: 2 ** 53 + 2 };
    await store.updateSettings('alice', record.id, again);
    const read = (await store.getRecord('alice', record.id))?.settings;
    expect(JSON.stringify(read)).toBe(JSON.stringify(again));
    expect(Object.hasOwn(read?.nodes ?? {}, '__proto__')).toBe(true);
  });
});

describe('quotas', () => {
  /** A store counting through a real quota counter, which recounts from the store itself. */
  function countedStore(
    limits: { maxSystems?: number; maxBytes?: number } = {},
    options: { doc?: DynamoDBDocumentClient; newId?: (timeMs: number) => string } = {},
  ) {
    const quotas = new DynamoOwnerQuotas({
      doc: options.doc ?? table.doc,
      tableName: table.tableName,
      quotas: { maxSystems: 10, maxKeys: 1, maxBytes: 1_000_000, ...limits },
      usage: async (owner) => ({ ...(await plain.usage(owner)), keys: 0 }),
    });
    const plain = storeWith();
    return storeWith({ chunkBytes: 64, quotas, ...options });
  }

  /** The owner's counter: what it counts, and the changes it holds open. */
  async function counter(owner = 'alice') {
    const { Item = {} } = await table.doc.send(
      new GetCommandForDoc({
        TableName: table.tableName,
        Key: { pk: `OWNER#${owner}`, sk: 'QUOTA' },
        ConsistentRead: true,
      }),
    );
    return {
      systems: Item.systems,
      bytes: Item.bytes,
      holds: Object.keys(Item).filter((name) => name.startsWith('hold_')).length,
    };
  }
  const storedBytes = async (id: string) => Number((await rawHead('alice', id))?.byteLength?.N);

  // One chunked and one inline system: the counter holds both and their compressed bytes, as the
  // heads themselves do; deleting gives them back, and deleting what is gone changes nothing.
  it('counts each system and its stored bytes, and frees them on delete', async () => {
    const store = countedStore();
    const chunked = await store.create(newSystem('alice', 'chunked'), T0);
    const inline = await store.create(newSystem('alice', 'inline', { nodes: [], dependencies: [] }), at(1));
    const [a, b] = [await storedBytes(chunked.id), await storedBytes(inline.id)];
    expect(a).toBeGreaterThan(64);
    expect(await counter()).toEqual({ systems: 2, bytes: a + b, holds: 0 });
    expect(await store.usage('alice')).toEqual({ systems: 2, bytes: a + b });
    expect(await store.delete('alice', chunked.id)).toBe(true);
    expect(await counter()).toEqual({ systems: 1, bytes: b, holds: 0 });
    expect(await store.delete('alice', chunked.id)).toBe(false);
    expect(await counter()).toEqual({ systems: 1, bytes: b, holds: 0 });
    expect(await store.delete('alice', inline.id)).toBe(true);
    expect(await counter()).toEqual({ systems: 0, bytes: 0, holds: 0 });
  });

  // While a refresh is under way the counter already holds the larger of the two sizes: growth
  // is counted before the chunks are written, shrinking only once the new head is in.
  it('counts a refresh’s growth before it and its shrinking after it', async () => {
    const small = { nodes: [{ id: 'A' }], dependencies: [] };
    const large = generatedStructure(40, 60);
    const first = countedStore();
    const record = await first.create(newSystem('alice', 'grows', small), T0);
    const smallBytes = await storedBytes(record.id);

    const growing = holdingDoc(isRefreshHeadWrite);
    const growth = countedStore({}, { doc: growing.doc }).replace('alice', record.id, { structure: large });
    await growing.held;
    const during = await counter();
    expect(during.holds).toBe(1);
    expect(during.bytes).toBeGreaterThan(smallBytes);
    growing.release();
    await growth;
    const grown = await storedBytes(record.id);
    expect(during.bytes).toBe(grown);
    expect(await counter()).toEqual({ systems: 1, bytes: grown, holds: 0 });

    const shrinking = holdingDoc(isRefreshHeadWrite);
    const shrink = countedStore({}, { doc: shrinking.doc }).replace('alice', record.id, { structure: small });
    await shrinking.held;
    expect(await counter()).toEqual({ systems: 1, bytes: grown, holds: 1 });
    shrinking.release();
    await shrink;
    expect(await counter()).toEqual({ systems: 1, bytes: smallBytes, holds: 0 });
  });

  // Past a quota nothing is written: no chunks, no head, the old version whole.
  it('refuses a system or a refresh past a quota before writing anything', async () => {
    const store = countedStore({ maxSystems: 1 });
    const record = await store.create(newSystem(), T0);
    const bytes = await storedBytes(record.id);
    await expect(store.create(newSystem('alice', 'second'), at(1))).rejects.toMatchObject({
      name: 'QuotaExceededError',
      quota: 'systems',
      limit: 1,
    });
    expect((await store.list('alice')).systems).toEqual([record]);

    const tight = countedStore({ maxBytes: bytes + 10 });
    const before = await chunkKeys(record.id);
    await expect(
      tight.replace('alice', record.id, { structure: generatedStructure(40, 60) }),
    ).rejects.toBeInstanceOf(QuotaExceededError);
    expect(await chunkKeys(record.id)).toEqual(before);
    expect((await tight.get('alice', record.id))?.structure).toEqual(WORKED_EXAMPLE);
    expect(await counter()).toEqual({ systems: 1, bytes, holds: 0 });
  });

  // A create that failed before its head, or a refresh before its head, certainly did not
  // happen: the count is given back. One whose head write failed may have happened: the hold
  // stays (an overcount until the owner is recounted), never an undercount.
  it('gives a count back only when the change certainly did not happen', async () => {
    const failChunk = docWith((command) =>
      command instanceof PutCommand && String(command.input.Item?.sk).startsWith('CHUNK#')
        ? Promise.reject(new Error('a chunk write failed'))
        : undefined,
    );
    await expect(countedStore({}, { doc: failChunk }).create(newSystem(), T0)).rejects.toThrow(
      'a chunk write failed',
    );
    expect(await counter()).toEqual({ systems: 0, bytes: 0, holds: 0 });

    const record = await countedStore().create(newSystem(), T0);
    const bytes = await storedBytes(record.id);
    await expect(
      countedStore({}, { doc: failChunk }).replace('alice', record.id, {
        structure: generatedStructure(40, 60),
      }),
    ).rejects.toThrow('a chunk write failed');
    expect(await counter()).toEqual({ systems: 1, bytes, holds: 0 });

    const failHead = docWith((command) =>
      command instanceof PutCommand && String(command.input.Item?.sk).startsWith('SYSTEM#')
        ? Promise.reject(new Error('the head write failed'))
        : undefined,
    );
    await expect(
      countedStore({}, { doc: failHead }).create(newSystem('alice', 'maybe'), at(1)),
    ).rejects.toThrow('the head write failed');
    // The head is certainly not there (a consistent read says so): the count is given back.
    expect(await counter()).toEqual({ systems: 1, bytes, holds: 0 });

    // When not even that can be read, the system may exist: the hold stays, an overcount.
    const failHeadAndRead = docWith((command) =>
      (command instanceof PutCommand && String(command.input.Item?.sk).startsWith('SYSTEM#')) ||
      (command instanceof GetCommandForDoc && String(command.input.Key?.sk).startsWith('SYSTEM#'))
        ? Promise.reject(new Error('the table is unreachable'))
        : undefined,
    );
    await expect(
      countedStore({}, { doc: failHeadAndRead }).create(newSystem('alice', 'maybe'), at(1)),
    ).rejects.toThrow('the table is unreachable');
    expect(await counter()).toMatchObject({ systems: 2, holds: 1 });

    const failDelete = docWith((command) =>
      command instanceof DeleteCommand ? Promise.reject(new Error('the delete failed')) : undefined,
    );
    const afterCreate = await counter();
    await expect(countedStore({}, { doc: failDelete }).delete('alice', record.id)).rejects.toThrow(
      'the delete failed',
    );
    expect(await counter()).toEqual(afterCreate);
  });

  // The loser of two refreshes gives back the growth it counted; the winner's stands.
  it('gives back the growth of a refresh that lost the race', async () => {
    const store = countedStore();
    const record = await store.create(newSystem(), T0);
    const slow = holdingDoc(isRefreshHeadWrite);
    const loser = countedStore({}, { doc: slow.doc }).replace('alice', record.id, {
      structure: generatedStructure(60, 90),
    });
    await slow.held;
    await store.replace('alice', record.id, { structure: generatedStructure(5, 4) });
    slow.release();
    await expect(loser).rejects.toBeInstanceOf(SystemChangedError);
    expect(await counter()).toEqual({ systems: 1, bytes: await storedBytes(record.id), holds: 0 });
  });

  // An id that is taken (a ULID collision, or an id source gone wrong) writes nothing over the
  // first system, whose chunks and head stay whole, and counts nothing.
  it('refuses an id that is taken, keeping the first system whole', async () => {
    const id = fixedIds()(T0.getTime());
    const store = countedStore({}, { newId: () => id });
    const first = await store.create(newSystem('alice', 'first'), T0);
    const bytes = await storedBytes(id);
    const before = await partition(`SYSTEM#${id}`);
    for (const structure of [generatedStructure(30, 40), { nodes: [], dependencies: [] }]) {
      await expect(store.create(newSystem('alice', 'second', structure), at(1))).rejects.toThrow(
        `system id ${id} is already taken; nothing of the new system is visible`,
      );
    }
    expect(await partition(`SYSTEM#${id}`)).toEqual(before);
    expect((await store.get('alice', id))?.record).toEqual(first);
    expect(await counter()).toEqual({ systems: 1, bytes, holds: 0 });
    // The first system is inline: the second's chunks all land, its head does not, and they go.
    const inlineId = fixedIds()(at(5).getTime());
    const inlineFirst = storeWith({ chunkBytes: 64, newId: () => inlineId });
    await inlineFirst.create(newSystem('alice', 'inline', { nodes: [], dependencies: [] }), at(5));
    await expect(inlineFirst.create(newSystem('alice', 'chunked'), at(6))).rejects.toThrow('already taken');
    expect(await partition(`SYSTEM#${inlineId}`)).toEqual([]);
    expect((await store.get('alice', inlineId))?.record.name).toBe('inline');
    await expect(storeWith({ newId: () => 'not-a-ulid' }).create(newSystem(), T0)).rejects.toThrow(
      'the id source returned something that is not a ULID',
    );
  });
});

describe('through DynamoDB faults', () => {
  // DynamoDB reads are eventually consistent unless asked: a system must be readable the moment
  // create returns and gone the moment delete does, and a retried write must be checked against
  // the item as it is. dynalite always reads consistently, so the wire requests themselves are
  // checked, over every read the store makes: heads, records, listings, usage, chunks, and the
  // reads after a lost answer (the item a put wrote, the chunks of a deleted head).
  it('asks for strongly consistent reads', async () => {
    const proxied = await throughFaultProxy(table);
    try {
      const store = storeWith({ chunkBytes: 64, doc: proxied.doc });
      // The first chunk put and the head delete are applied, their answers lost.
      proxied.proxy.reset((call, attempt) =>
        attempt === 1 &&
        ((call.operation === 'PutItem' && call.body.Item.sk.S === 'CHUNK#00000') ||
          call.operation === 'DeleteItem' ||
          (call.operation === 'UpdateItem' &&
            String(call.body.ConditionExpression).includes('#settingsRevision =')))
          ? { kind: 'appliedThenError', error: 'InternalServerError' }
          : undefined,
      );
      const record = await store.create(newSystem(), T0);
      await store.get('alice', record.id);
      await store.getRecord('alice', record.id);
      await store.list('alice');
      await store.usage('alice');
      await store.replace('alice', record.id, { structure: generatedStructure(10, 12) });
      await store.updateSettings('alice', record.id, { defaultCapacity: 2 });
      await store.updateSettings('alice', record.id, { defaultCapacity: 3 }, { revision: 1 });
      expect(await store.delete('alice', record.id)).toBe(true);
      expect(await partition(`SYSTEM#${record.id}`)).toEqual([]);

      const reads = proxied.proxy.calls.filter(({ operation }) =>
        ['GetItem', 'Query', 'Scan'].includes(operation),
      );
      expect(new Set(reads.map(({ operation }) => operation))).toEqual(new Set(['GetItem', 'Query']));
      expect(reads.length).toBeGreaterThanOrEqual(9);
      expect(reads.filter(({ body }) => body.ConsistentRead !== true)).toEqual([]);
    } finally {
      await proxied.close();
    }
  });

  // The first attempt of the head write fails (nothing written) and its retry meets an item
  // that is not this call's (an id taken meanwhile): it is not taken for its own write.
  it('does not take another item for its own write after a retry', async () => {
    const id = fixedIds()(T0.getTime());
    const first = await storeWith({ newId: () => id }).create(newSystem('alice', 'first'), T0);
    const proxied = await throughFaultProxy(table);
    try {
      proxied.proxy.reset((call, attempt) =>
        attempt === 1 && call.operation === 'PutItem'
          ? { kind: 'error', error: 'InternalServerError' }
          : undefined,
      );
      await expect(
        storeWith({ newId: () => id, doc: proxied.doc }).create(newSystem('alice', 'second'), at(1)),
      ).rejects.toThrow('already taken');
      expect(proxied.proxy.calls.find(({ operation }) => operation === 'PutItem')?.attempts).toBe(2);
      expect((await storeWith().get('alice', id))?.record).toEqual(first);
    } finally {
      await proxied.close();
    }
  });
});

describe('lost answers that are not ours', () => {
  /**
   * Attempt `rivalAt` of the first call `matches` picks hangs (its answer never comes); while it
   * does, `meanwhile` changes the system; the attempts before it are applied with their answers
   * lost. The SDK's next attempt then meets all of that. Resolves to what `run` answered or
   * threw, and the calls the proxy saw.
   */
  async function withRival(
    matches: (call: ProxiedCall) => boolean,
    meanwhile: () => Promise<unknown>,
    run: (doc: DynamoDBDocumentClient) => Promise<unknown>,
    rivalAt = 1,
  ) {
    const proxied = await throughFaultProxy(table, { attemptTimeoutMs: 1500 });
    let rival: Promise<unknown> = Promise.resolve();
    try {
      proxied.proxy.reset((call, attempt) => {
        if (!matches(call) || attempt > rivalAt) return undefined;
        if (attempt < rivalAt) return { kind: 'appliedThenError', error: 'InternalServerError' };
        rival = meanwhile();
        return { kind: 'hang' };
      });
      const outcome = await run(proxied.doc).catch((error: unknown) => error);
      return { outcome, calls: proxied.proxy.calls };
    } finally {
      await rival;
      await proxied.close();
    }
  }
  const refreshHeadUpdate = (call: ProxiedCall) =>
    call.operation === 'UpdateItem' && String(call.body.ConditionExpression).includes('#version');
  const settingsUpdate = (call: ProxiedCall) =>
    call.operation === 'UpdateItem' && String(call.body.UpdateExpression).includes('#settingsRevision');

  // A refresh's head update times out, a rival refresh lands, the retry fails its condition: the
  // head is the rival's, not this refresh's, so this one lost and its chunks go.
  it('does not take a rival refresh for its own', async () => {
    const store = storeWith({ chunkBytes: 64 });
    const record = await store.create(newSystem(), T0);
    const rivalStructure = generatedStructure(12, 14, 3);
    const { outcome } = await withRival(
      refreshHeadUpdate,
      () => store.replace('alice', record.id, { structure: rivalStructure }),
      (doc) =>
        storeWith({ chunkBytes: 64, doc }).replace('alice', record.id, {
          structure: generatedStructure(8, 9, 4),
        }),
    );
    expect(outcome).toBeInstanceOf(SystemChangedError);
    expect((await store.get('alice', record.id))?.structure).toEqual(rivalStructure);
    const chunkVersion = (await rawHead('alice', record.id))?.chunkVersion?.N;
    expect((await chunkKeys(record.id)).every((sk) => sk?.startsWith(`CHUNK#v${chunkVersion}#`))).toBe(true);
  });

  // Clearing the settings times out; meanwhile a refresh lands. The two touch different
  // attributes of the head, so the retried clear applies and both hold: the new structure, no settings.
  it('lets a clear of the settings and a refresh during it both hold', async () => {
    const store = storeWith();
    const record = await store.create({ ...newSystem(), settings: { defaultCapacity: 5 } }, T0);
    const refreshed = generatedStructure(6, 7, 5);
    const { outcome } = await withRival(
      settingsUpdate,
      () => store.replace('alice', record.id, { structure: refreshed }),
      (doc) => storeWith({ doc }).updateSettings('alice', record.id, undefined),
    );
    expect(outcome).toMatchObject({ id: record.id, version: 2 });
    expect(outcome).not.toHaveProperty('settings');
    const stored = await store.get('alice', record.id);
    expect(stored?.record).toMatchObject({ version: 2, settingsRevision: 1 });
    expect(stored?.record).not.toHaveProperty('settings');
    expect(stored?.structure).toEqual(refreshed);
  });

  // Settings written on a revision (If-Match), the answer lost; before the SDK's last attempt a
  // refresh lands. That attempt fails its condition (the write itself moved the revision on), yet
  // the head holds the settings written, one revision on: the change did happen, and is answered so.
  it('takes its own settings, kept by a refresh since, for its write', async () => {
    const store = storeWith();
    const record = await store.create(newSystem(), T0);
    const settings = { defaultCapacity: 6 };
    const { outcome, calls } = await withRival(
      settingsUpdate,
      () => store.replace('alice', record.id, { structure: WORKED_EXAMPLE }),
      (doc) => storeWith({ doc }).updateSettings('alice', record.id, settings, { revision: 0 }),
      2,
    );
    expect(outcome).toMatchObject({ id: record.id, settings, settingsRevision: 1 });
    expect(calls.find(settingsUpdate)?.attempts).toBe(3);
    expect((await store.get('alice', record.id))?.record).toMatchObject({ version: 2, settings });
  });

  // Settings written on a revision time out; meanwhile another PATCH writes other settings. The
  // retry fails its condition and the head is one revision on, but with the rival's settings:
  // this write did not happen, and the caller is told the settings changed.
  it('does not take a rival PATCH for its own', async () => {
    const store = storeWith();
    const record = await store.create(newSystem(), T0);
    const { outcome } = await withRival(
      settingsUpdate,
      () => store.updateSettings('alice', record.id, { defaultCapacity: 9 }),
      (doc) => storeWith({ doc }).updateSettings('alice', record.id, { defaultCapacity: 4 }, { revision: 0 }),
    );
    expect(outcome).toBeInstanceOf(SettingsChangedError);
    expect((await store.getRecord('alice', record.id))?.settings).toEqual({ defaultCapacity: 9 });
  });

  // A clear on a revision whose first attempt never reached DynamoDB; meanwhile another PATCH
  // sets settings. The retry fails its condition, the head is one revision on, but it has
  // settings: this clear did not happen.
  it('does not take a rival PATCH for its own clear', async () => {
    const store = storeWith();
    const record = await store.create(newSystem(), T0);
    const { outcome } = await withRival(
      settingsUpdate,
      () => store.updateSettings('alice', record.id, { defaultCapacity: 9 }),
      (doc) => storeWith({ doc }).updateSettings('alice', record.id, undefined, { revision: 0 }),
    );
    expect(outcome).toEqual(
      new SettingsChangedError(
        `system ${record.id}: its settings are no longer revision 0; nothing was written`,
      ),
    );
    expect((await store.getRecord('alice', record.id))?.settings).toEqual({ defaultCapacity: 9 });
  });

  // Written on a revision, the answer lost; before the SDK's last attempt, another PATCH writes
  // the very same settings. The head holds them, but two revisions on: the rival's write is the
  // last, and the caller's If-Match no longer holds, so it is told so.
  it('does not take the same settings two revisions on for its own', async () => {
    const store = storeWith();
    const record = await store.create(newSystem(), T0);
    const settings = { defaultCapacity: 6 };
    const { outcome } = await withRival(
      settingsUpdate,
      () => store.updateSettings('alice', record.id, settings),
      (doc) => storeWith({ doc }).updateSettings('alice', record.id, settings, { revision: 0 }),
      2,
    );
    expect(outcome).toBeInstanceOf(SettingsChangedError);
    expect((await store.getRecord('alice', record.id))?.settingsRevision).toBe(2);
  });

  // A refresh's head update times out; a rival refresh to the same structure at the same moment
  // lands with a unit this one removes. The head holds every attribute this refresh set, but also
  // one it removed: it is the rival's, and this refresh lost.
  it('does not take a rival refresh that kept an attribute this one removes', async () => {
    const store = storeWith();
    const record = await store.create({ ...newSystem(), unit: 'day' }, T0);
    const { outcome } = await withRival(
      refreshHeadUpdate,
      () => store.replace('alice', record.id, { structure: WORKED_EXAMPLE, unit: 'hour' }, at(60)),
      (doc) => storeWith({ doc }).replace('alice', record.id, { structure: WORKED_EXAMPLE }, at(60)),
    );
    expect(outcome).toBeInstanceOf(SystemChangedError);
    expect((await store.getRecord('alice', record.id))?.unit).toBe('hour');
  });
});

describe('layout and limits', () => {
  it('refuses a chunk size outside 1..300,000', () => {
    for (const chunkBytes of [0, -1, 1.5, 300_001, Number.NaN]) {
      expect(() => storeWith({ chunkBytes })).toThrow('chunkBytes must be an integer from 1 to 300000');
    }
    expect(() => storeWith({ chunkBytes: 1 })).not.toThrow();
    expect(() => storeWith({ chunkBytes: 300_000 })).not.toThrow();
  });

  // A structure of exactly the chunk size still fits inline; one byte less and it takes two
  // chunks, the second of one byte.
  it('stores inline up to exactly the chunk size', async () => {
    const probe = await storeWith().create(newSystem('probe'), T0);
    const size = Number((await rawHead('probe', probe.id))?.byteLength?.N);
    const exact = await storeWith({ chunkBytes: size }).create(newSystem('alice', 'exact'), at(1));
    expect((await rawHead('alice', exact.id))?.chunkCount).toEqual({ N: '0' });
    const over = await storeWith({ chunkBytes: size - 1 }).create(newSystem('alice', 'over'), at(2));
    expect((await rawHead('alice', over.id))?.chunkCount).toEqual({ N: '2' });
    const chunks = await partition(`SYSTEM#${over.id}`);
    expect(chunks.map((item) => item.data?.B?.length)).toEqual([size - 1, 1]);
    expect((await storeWith().get('alice', over.id))?.structure).toEqual(WORKED_EXAMPLE);
  });

  // A chunk without its bytes, or a head whose byte count disagrees with its chunks, is refused
  // by name rather than decoded.
  it('refuses a chunk without data and a byte count that does not add up', async () => {
    const store = storeWith({ chunkBytes: 16 });
    const record = await store.create(newSystem(), T0);
    const head = (await rawHead('alice', record.id))!;
    await table.client.send(
      new PutItemCommand({
        TableName: table.tableName,
        Item: { ...head, byteLength: { N: String(Number(head.byteLength?.N) + 1) } },
      }),
    );
    await expect(store.get('alice', record.id)).rejects.toThrow(
      `system ${record.id}: ${head.byteLength?.N} bytes stored, the head records ${Number(head.byteLength?.N) + 1}`,
    );
    await table.client.send(new PutItemCommand({ TableName: table.tableName, Item: head }));
    await table.client.send(
      new PutItemCommand({
        TableName: table.tableName,
        Item: { pk: { S: `SYSTEM#${record.id}` }, sk: { S: 'CHUNK#00001' }, owner: { S: 'alice' } },
      }),
    );
    await expect(store.get('alice', record.id)).rejects.toThrow(
      `system ${record.id}: chunk CHUNK#00001 has no data`,
    );
  });
});

describe('records as read back', () => {
  // What create, replace and updateSettings return is exactly what a later read returns: no
  // field set to undefined, every optional field given kept.
  it('returns records equal to the stored ones, field for field', async () => {
    const store = storeWith({ chunkBytes: 64 });
    const { url: _url, ...withoutUrl } = newSystem();
    const bare = await store.create(withoutUrl, T0);
    expect(bare).toStrictEqual((await store.get('alice', bare.id))?.record);
    expect(Object.keys(bare).sort()).toEqual(
      ['createdAt', 'dependencies', 'id', 'name', 'nodes', 'owner', 'sha256'].sort(),
    );
    const full = await store.create(
      { ...newSystem(), format: 'native', unit: 'day', settings: { defaultCapacity: 2 } },
      at(1),
    );
    expect(full).toMatchObject({ format: 'native', unit: 'day', settings: { defaultCapacity: 2 } });
    expect(full).toStrictEqual((await store.get('alice', full.id))?.record);

    const refreshed = await store.replace('alice', full.id, { structure: generatedStructure(5, 4) });
    expect(refreshed).toStrictEqual((await store.get('alice', full.id))?.record);
    const relabelled = await store.replace('alice', full.id, {
      structure: generatedStructure(5, 4),
      format: 'openapi',
      unit: 'hour',
    });
    expect(relabelled).toMatchObject({ format: 'openapi', unit: 'hour' });
    expect(relabelled).toStrictEqual((await store.get('alice', full.id))?.record);

    const cleared = await store.updateSettings('alice', full.id, undefined);
    expect(cleared).toStrictEqual((await store.get('alice', full.id))?.record);
    expect(cleared?.settings).toBeUndefined();
    const set = await store.updateSettings('alice', full.id, { defaultCapacity: 9 });
    expect(set).toStrictEqual((await store.get('alice', full.id))?.record);
    expect(await store.updateSettings('alice', idOf(99), { defaultCapacity: 1 })).toBeUndefined();
  });

  // An id no system could have is answered as unknown without asking DynamoDB, which would
  // refuse a sort key past 1,024 bytes with an error.
  it('answers an id far too long as not found', async () => {
    const store = storeWith();
    const long = 'A'.repeat(2000);
    expect(await store.get('alice', long)).toBeUndefined();
    expect(await store.getRecord('alice', long)).toBeUndefined();
    expect(await store.delete('alice', long)).toBe(false);
    expect(await store.replace('alice', long, { structure: WORKED_EXAMPLE })).toBeUndefined();
    expect(await store.updateSettings('alice', long, undefined)).toBeUndefined();
  });

  // A structure of exactly the size bound is stored; one byte over is refused, saying the bound.
  it('stores up to exactly the size bound', async () => {
    const probe = await storeWith().create(newSystem('probe'), T0);
    const size = Number((await rawHead('probe', probe.id))?.byteLength?.N);
    const exact = await storeWith({ maxStoredBytes: size }).create(newSystem(), at(1));
    const tooLarge = `structure is too large to store: over ${size - 1} bytes even compressed`;
    await expect(storeWith({ maxStoredBytes: size - 1 }).create(newSystem(), at(2))).rejects.toThrow(
      tooLarge,
    );
    expect(
      await storeWith({ maxStoredBytes: size }).replace('alice', exact.id, { structure: WORKED_EXAMPLE }),
    ).toMatchObject({
      version: 2,
    });
    await expect(
      storeWith({ maxStoredBytes: size - 1 }).replace('alice', exact.id, { structure: WORKED_EXAMPLE }),
    ).rejects.toThrow(tooLarge);
  });

  // A taken id is its own kind of error, told apart from a fault by its name.
  it('names a taken id', async () => {
    const id = idOf(7);
    await storeWith({ newId: () => id }).create(newSystem(), T0);
    await expect(storeWith({ newId: () => id }).create(newSystem(), T0)).rejects.toMatchObject({
      name: 'SystemIdTakenError',
    });
  });

  // A listing or a record read asks only for the record's attributes, never the up to 300 KB
  // structure a head may hold inline.
  it('reads records without the structure', async () => {
    const proxied = await throughFaultProxy(table);
    try {
      const store = storeWith({ doc: proxied.doc });
      const record = await store.create(newSystem(), T0);
      proxied.proxy.reset();
      await store.list('alice');
      await store.getRecord('alice', record.id);
      const [query, get] = proxied.proxy.calls;
      for (const call of [query, get]) {
        expect(Object.values(call?.body.ExpressionAttributeNames ?? {}).sort()).toEqual(
          ['pk', 'sk', ...RECORD_ATTRIBUTES].sort(),
        );
        expect(String(call?.body.ProjectionExpression).split(', ')).toHaveLength(
          RECORD_ATTRIBUTES.length + 2,
        );
      }
    } finally {
      await proxied.close();
    }
  });

  // A create whose chunk write fails on a busy table removes the chunks it did write before it
  // answers: the id is new, so every chunk key under it is this create's.
  it('removes the chunks of a create that failed on a busy table', async () => {
    const failing = docWith((command) =>
      command instanceof PutCommand && command.input.Item?.sk === 'CHUNK#00002'
        ? Promise.reject(new Error('throttled'))
        : undefined,
    );
    await expect(storeWith({ chunkBytes: 16, doc: failing }).create(newSystem(), T0)).rejects.toThrow(
      'throttled',
    );
    const id = fixedIds()(T0.getTime());
    expect(await chunkKeys(id)).toEqual([]);
  });
});

describe('listing pages that DynamoDB cuts short', () => {
  // Each Query stops at 1 MB, here after four systems of ~260 KB, exactly a page of four: one
  // more Query finds that a fifth exists, so the page carries a cursor and nothing is skipped.
  it('looks one system past a page that a Query filled exactly', async () => {
    const store = storeWith();
    for (let index = 0; index < 6; index++) {
      const structure = { nodes: [], dependencies: [], notes: pseudoRandomText(350_000, index) };
      await store.create(newSystem('alice', `large ${index}`, structure), at(index));
    }
    const first = await store.list('alice', { limit: 4 });
    expect(first.systems.map((record) => record.name)).toEqual(['large 5', 'large 4', 'large 3', 'large 2']);
    expect(first.cursor).toBeDefined();
    const second = await store.list('alice', { limit: 4, cursor: first.cursor! });
    expect(second.systems.map((record) => record.name)).toEqual(['large 1', 'large 0']);
    expect(second.cursor).toBeUndefined();
  });
});
