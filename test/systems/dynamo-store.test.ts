import { createHash } from 'node:crypto';
import { DeleteItemCommand, GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand as QueryCommandForDoc,
} from '@aws-sdk/lib-dynamodb';
import { monotonicFactory } from 'ulid';
import { describe, expect, it } from 'vitest';
import { DynamoSystemStore, SystemInputError } from '../../lib/systems';
import { SystemStorageError } from '../../lib/systems/errors';
import { WORKED_EXAMPLE } from '../../lib/worked-example';
import { useFreshTable } from '../helpers/dynalite';
import { generatedStructure, pseudoRandomText } from './structures';

const table = useFreshTable();

const T0 = new Date('2026-03-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

/** ULIDs whose random part is fixed, so ids are the same on every run and still sort by time. */
const fixedIds = () => monotonicFactory(() => 0.5);

function storeWith(
  options: { chunkBytes?: number; maxStoredBytes?: number; doc?: DynamoDBDocumentClient } = {},
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
  // The head is written last: when that write fails, the chunks are there but nothing shows.
  it('shows nothing of a system whose head write failed', async () => {
    let headId: string | undefined;
    const doc = docWith((command) => {
      const item = command.input.Item as Record<string, unknown> | undefined;
      if (!(command instanceof PutCommand) || !String(item?.sk).startsWith('SYSTEM#')) return undefined;
      headId = String(item?.id);
      return Promise.reject(new Error('simulated failure of the head write'));
    });
    const failing = storeWith({ chunkBytes: 32, doc });
    await expect(failing.create(newSystem(), T0)).rejects.toThrow('simulated failure of the head write');

    expect((await partition(`SYSTEM#${headId}`)).length).toBeGreaterThan(1);
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
