import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { ScanCommand as DocScanCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiKeyInputError, DynamoApiKeyStore, hashApiKey, importApiKey, issueApiKey } from '../../lib/keys';
import { ApiKeyConflictError } from '../../lib/keys/store';
import { useFreshTable } from '../helpers/dynalite';

const table = useFreshTable();
let store: DynamoApiKeyStore;
beforeEach(() => {
  store = new DynamoApiKeyStore({ doc: table.doc, tableName: table.tableName });
});

const T0 = new Date('2025-03-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

/** Every item in the table exactly as DynamoDB holds it (attribute-value JSON). */
async function rawItems() {
  const { Items = [] } = await table.client.send(new ScanCommand({ TableName: table.tableName }));
  return Items;
}

describe('issueApiKey + getByDigest', () => {
  it('stores a record that one GetItem by digest finds again', async () => {
    // Models `keys create`, then a request presenting that key.
    const { key, record } = await issueApiKey(store, { owner: 'alice', name: 'CI pipeline' }, T0);
    const found = await store.getByDigest(hashApiKey(key));
    expect(found).toEqual({
      digest: hashApiKey(key),
      id: hashApiKey(key).slice(0, 12),
      prefix: key.slice(0, 12),
      owner: 'alice',
      name: 'CI pipeline',
      status: 'active',
      createdAt: '2025-03-01T12:00:00.000Z',
    });
    // Exactly: no attribute the record did not have (a key never used has no lastUsedAt at all).
    expect(found).toStrictEqual(record);
  });

  // Two items per key: the key by digest (what a request looks up), and the owner's index
  // entry (what the owner's listing queries), which holds the digest and nothing else.
  it('lays the key out as pk APIKEY#<digest>, sk APIKEY, with an owner index entry', async () => {
    const { key, record } = await issueApiKey(store, { owner: 'alice', name: 'laptop' }, T0);
    const items = await rawItems();
    const byPk = (prefix: string) => items.filter((item) => String(item.pk?.S).startsWith(prefix));
    expect(byPk('APIKEY#').map((item) => [item.pk, item.sk])).toEqual([
      [{ S: `APIKEY#${hashApiKey(key)}` }, { S: 'APIKEY' }],
    ]);
    expect(byPk('OWNER#')).toEqual([
      { pk: { S: 'OWNER#alice' }, sk: { S: `APIKEY#${record.id}` }, digest: { S: hashApiKey(key) } },
    ]);
  });

  // The owner's listing is a Query on the index, with status read from the key item itself.
  it('lists one owner own keys, oldest first, revoked ones included', async () => {
    const first = await issueApiKey(store, { owner: 'alice', name: 'one' }, T0);
    const second = await issueApiKey(store, { owner: 'alice', name: 'two' }, new Date(T0.getTime() + 1000));
    await issueApiKey(store, { owner: 'bob', name: 'other' }, T0);
    await store.revoke(first.record.digest);
    const listed = await store.listByOwner('alice');
    expect(listed.map((record) => [record.name, record.status])).toEqual([
      ['one', 'revoked'],
      ['two', 'active'],
    ]);
    expect(listed[1]?.id).toBe(second.record.id);
    expect(await store.listByOwner('nobody')).toEqual([]);
  });

  it('never stores the key or its random body anywhere in the table', async () => {
    const issued = await Promise.all(
      ['one', 'two', 'three'].map((name) => issueApiKey(store, { owner: 'alice', name }, T0)),
    );
    const everything = JSON.stringify(await rawItems());
    for (const { key } of issued) {
      expect(everything).not.toContain(key);
      expect(everything).not.toContain(key.slice(4));
      // Not even the part after the 8-character display prefix.
      expect(everything).not.toContain(key.slice(12));
    }
  });

  it('returns undefined for a digest that was never stored, and for something that is not a digest', async () => {
    expect(await store.getByDigest(hashApiKey('sbe_never-issued-never-issued-never-issued'))).toBeUndefined();
    expect(await store.getByDigest('not-a-digest')).toBeUndefined();
  });

  it('refuses a second record with the same digest, naming the id', async () => {
    const { record } = await issueApiKey(store, { owner: 'alice', name: 'a' }, T0);
    const conflict = new ApiKeyConflictError(`an API key with id ${record.id} already exists`);
    // Another owner: the key item is there already.
    await expect(store.put({ ...record, owner: 'mallory' })).rejects.toThrow(conflict);
    // The same owner: the owner's index entry is there already.
    await expect(store.put({ ...record, name: 'again' })).rejects.toThrow(conflict);
    expect(await store.listByOwner('alice')).toEqual([record]);
    expect(await store.listByOwner('mallory')).toEqual([]);
  });

  // Index entries edited by hand so that they name no digest are skipped, not sent to
  // DynamoDB as keys (two of them would be one key twice, which BatchGetItem refuses).
  it('skips owner index entries without a digest', async () => {
    const { record } = await issueApiKey(store, { owner: 'alice', name: 'a' }, T0);
    for (const sk of ['APIKEY#edited1', 'APIKEY#edited2']) {
      await table.doc.send(new PutCommand({ TableName: table.tableName, Item: { pk: 'OWNER#alice', sk } }));
    }
    expect(await store.listByOwner('alice')).toEqual([record]);
  });

  it('rejects a bad owner or name, naming the field, before writing anything', async () => {
    await expect(issueApiKey(store, { owner: 'has space', name: 'x' })).rejects.toMatchObject({
      name: 'ApiKeyInputError',
      field: 'owner',
    });
    await expect(issueApiKey(store, { owner: 'alice', name: '   ' })).rejects.toMatchObject({
      field: 'name',
    });
    await expect(issueApiKey(store, { owner: 'alice', name: 'tab\there' })).rejects.toMatchObject({
      field: 'name',
    });
    await expect(issueApiKey(store, { owner: 'a'.repeat(129), name: 'x' })).rejects.toBeInstanceOf(
      ApiKeyInputError,
    );
    expect(await rawItems()).toEqual([]);
  });

  it('refuses to read back an item that is not a well-formed API key record', async () => {
    // Models a hand-edited item in the console: better a loud error than a guessed identity.
    const digest = hashApiKey('sbe_hand-edited-hand-edited-hand-edited');
    await table.doc.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { pk: `APIKEY#${digest}`, sk: 'APIKEY', id: 'abc', owner: 'x', name: 'y', status: 'enabled' },
      }),
    );
    await expect(store.getByDigest(digest)).rejects.toThrow(/API key item abc/);
  });
});

describe('importApiKey', () => {
  const DEV_KEY = 'sbe_contractcheck0123456789abcdefghijklmnopqrstuv';

  it('registers a fixed key once; importing it again returns the stored record unchanged', async () => {
    // Models the local server seeding DEV_API_KEY on every start.
    const first = await importApiKey(store, DEV_KEY, { owner: 'dev', name: 'local' }, T0);
    const again = await importApiKey(store, DEV_KEY, { owner: 'someone-else', name: 'other' }, at(60));
    expect(again).toEqual(first);
    expect(first.digest).toBe(hashApiKey(DEV_KEY));
    expect(JSON.stringify(await rawItems())).not.toContain(DEV_KEY.slice(4));
  });

  it('does not bring a revoked key back to life', async () => {
    const record = await importApiKey(store, DEV_KEY, { owner: 'dev', name: 'local' }, T0);
    await store.revoke(record.digest, at(1));
    expect((await importApiKey(store, DEV_KEY, { owner: 'dev', name: 'local' }, at(2))).status).toBe(
      'revoked',
    );
  });

  it('refuses a key that the verifier would never accept', async () => {
    await expect(importApiKey(store, 'sbe_tooshort', { owner: 'dev', name: 'x' })).rejects.toMatchObject({
      field: 'key',
    });
  });
});

describe('list', () => {
  it('returns API key records only, oldest first, optionally for one owner', async () => {
    const a = await issueApiKey(store, { owner: 'alice', name: 'a' }, at(0));
    const b = await issueApiKey(store, { owner: 'bob', name: 'b' }, at(1));
    const c = await issueApiKey(store, { owner: 'alice', name: 'c' }, at(2));
    // Another entity in the same table, with an owner attribute of its own, must not show up.
    await table.doc.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { pk: 'OWNER#alice', sk: 'SYSTEM#s1', owner: 'alice', name: 'a system' },
      }),
    );
    expect((await store.list()).map((record) => record.name)).toEqual(['a', 'b', 'c']);
    expect(await store.list({ owner: 'alice' })).toEqual([a.record, c.record]);
    expect(await store.list({ owner: 'bob' })).toEqual([b.record]);
    expect(await store.list({ owner: 'nobody' })).toEqual([]);
  });

  // Scan pages of 2 items: the 7 keys and their 7 index entries fill 7 pages, and a full page
  // always names a next one, so the 8th (empty) tells the end.
  it('follows Scan pages to the end', async () => {
    let scans = 0;
    const counting = new Proxy(table.doc, {
      get(target, property, receiver) {
        if (property !== 'send') return Reflect.get(target, property, receiver);
        return (command: Parameters<typeof target.send>[0]) => {
          if (command instanceof DocScanCommand) scans++;
          return target.send(command);
        };
      },
    });
    const paged = new DynamoApiKeyStore({ doc: counting, tableName: table.tableName, scanPageSize: 2 });
    for (let i = 0; i < 7; i++) await issueApiKey(store, { owner: 'alice', name: `k${i}` }, at(i));
    expect((await paged.list()).map((record) => record.name)).toEqual([
      'k0',
      'k1',
      'k2',
      'k3',
      'k4',
      'k5',
      'k6',
    ]);
    expect(scans).toBe(8);
  });
});

describe('order of keys created in the same millisecond', () => {
  // Six fixed keys, a to f; a to d created in the same millisecond, e and f one later. Within
  // a millisecond the id decides (c 61a7…, b 6d2e…, d b1ef…, a df23…), and the time comes
  // first: f (1585…) is listed after a. Both listings agree, whatever order DynamoDB returns.
  it('lists them by creation time, then by id', async () => {
    const created = new Map<string, Date>([
      ['a', T0],
      ['b', T0],
      ['c', T0],
      ['d', T0],
      ['e', new Date(T0.getTime() + 1)],
      ['f', new Date(T0.getTime() + 1)],
    ]);
    for (const [name, when] of created) {
      await importApiKey(
        store,
        `sbe_sameMillisecondKey_${name}_0123456789abcdef`,
        { owner: 'alice', name },
        when,
      );
    }
    const expected = ['c', 'b', 'd', 'a', 'f', 'e'];
    expect((await store.listByOwner('alice')).map((record) => record.name)).toEqual(expected);
    expect((await store.list()).map((record) => record.name)).toEqual(expected);
    expect((await store.list({ owner: 'alice' })).map((record) => record.name)).toEqual(expected);
  });
});

describe('revoke', () => {
  it('marks the key revoked with a timestamp, keeps the first timestamp on a repeat, and tells listeners', async () => {
    const { record } = await issueApiKey(store, { owner: 'alice', name: 'a' }, T0);
    const heard: string[] = [];
    const unsubscribe = store.onRevoked((digest) => heard.push(digest));

    const revoked = await store.revoke(record.digest, at(10));
    expect(revoked).toMatchObject({ status: 'revoked', revokedAt: at(10).toISOString(), owner: 'alice' });
    expect((await store.revoke(record.digest, at(20)))?.revokedAt).toBe(at(10).toISOString());
    expect(heard).toEqual([record.digest, record.digest]);

    unsubscribe();
    await store.revoke(record.digest, at(30));
    expect(heard).toHaveLength(2);
  });

  it('returns undefined for an unknown key and creates nothing', async () => {
    expect(await store.revoke(hashApiKey('sbe_unknown-unknown-unknown-unknown-unknown'))).toBeUndefined();
    expect(await rawItems()).toEqual([]);
  });
});

describe('getByOwnerAndId', () => {
  // What a revoke by id reads: the owner's own key, found by its public id.
  it("finds the owner's key by its id, revoked or not", async () => {
    const { record } = await issueApiKey(store, { owner: 'alice', name: 'a' }, T0);
    expect(await store.getByOwnerAndId('alice', record.id)).toEqual(record);
    await store.revoke(record.digest, at(5));
    expect(await store.getByOwnerAndId('alice', record.id)).toMatchObject({
      id: record.id,
      status: 'revoked',
    });
  });

  // Another owner's key, an id nobody has, and text that is no id all look the same: no key.
  it("answers nothing for another owner's key, an unknown id or text that is no id", async () => {
    const { record } = await issueApiKey(store, { owner: 'alice', name: 'a' }, T0);
    expect(await store.getByOwnerAndId('bob', record.id)).toBeUndefined();
    expect(await store.getByOwnerAndId('alice', '000000000000')).toBeUndefined();
    for (const id of ['', record.id.toUpperCase(), `${record.id}0`, 'x'.repeat(2000)])
      expect(await store.getByOwnerAndId('alice', id)).toBeUndefined();
  });

  // An index entry edited by hand to point at another owner's key (or left dangling by a failed
  // import) does not make that key this owner's.
  it("does not follow an index entry to another owner's key", async () => {
    const { record } = await issueApiKey(store, { owner: 'bob', name: 'b' }, T0);
    await table.doc.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { pk: 'OWNER#mallory', sk: `APIKEY#${record.id}`, digest: record.digest },
      }),
    );
    expect(await store.getByOwnerAndId('mallory', record.id)).toBeUndefined();
  });

  // Entries edited or left behind: one naming no digest, one whose key is gone, one filed under
  // another of the owner's ids. None of them is a key by that id.
  it('reads no key through an entry that names none, a missing one or one of another id', async () => {
    const { record } = await issueApiKey(store, { owner: 'alice', name: 'a' }, T0);
    const entries = [
      { sk: 'APIKEY#aaaaaaaaaaaa' },
      { sk: 'APIKEY#bbbbbbbbbbbb', digest: hashApiKey('sbe_gone-gone-gone-gone-gone-gone-gone') },
      { sk: 'APIKEY#cccccccccccc', digest: record.digest },
    ];
    for (const entry of entries)
      await table.doc.send(
        new PutCommand({ TableName: table.tableName, Item: { pk: 'OWNER#alice', ...entry } }),
      );
    for (const id of ['aaaaaaaaaaaa', 'bbbbbbbbbbbb', 'cccccccccccc'])
      expect(await store.getByOwnerAndId('alice', id)).toBeUndefined();
    expect(await store.getByOwnerAndId('alice', record.id)).toEqual(record);
  });

  // Two reads however many keys the owner has had (past one BatchGetItem of 100 here), where the
  // whole list takes a Query and two batches.
  it('reads two items, not the list', async () => {
    let last: Awaited<ReturnType<typeof issueApiKey>>['record'] | undefined;
    for (let i = 0; i < 120; i++)
      last = (await issueApiKey(store, { owner: 'alice', name: `k${i}` }, at(i))).record;
    // The commands as they go out (the document client shares its client's middleware stack).
    const sent: string[] = [];
    const doc = DynamoDBDocumentClient.from(table.client);
    doc.middlewareStack.add(
      (next, context) => (args) => {
        sent.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'countCommands' },
    );
    try {
      const counted = new DynamoApiKeyStore({ doc, tableName: table.tableName });
      expect(await counted.getByOwnerAndId('alice', last!.id)).toEqual(last);
      expect(sent).toEqual(['GetItemCommand', 'GetItemCommand']);
      sent.length = 0;
      expect(await counted.listByOwner('alice')).toHaveLength(120);
      expect(sent).toEqual(['QueryCommand', 'BatchGetItemCommand', 'BatchGetItemCommand']);
    } finally {
      doc.middlewareStack.remove('countCommands');
    }
  });
});

describe('touchLastUsed', () => {
  it('writes at most once a minute: first use, not 59 s or exactly 60 s later, then just after', async () => {
    const { record } = await issueApiKey(store, { owner: 'alice', name: 'a' }, T0);
    expect(await store.touchLastUsed(record.digest, at(5))).toBe(true);
    expect(await store.touchLastUsed(record.digest, at(64))).toBe(false);
    expect(await store.touchLastUsed(record.digest, at(65))).toBe(false);
    expect((await store.getByDigest(record.digest))?.lastUsedAt).toBe(at(5).toISOString());
    expect(await store.touchLastUsed(record.digest, at(65.001))).toBe(true);
    expect((await store.getByDigest(record.digest))?.lastUsedAt).toBe(at(65.001).toISOString());
  });

  it('never creates an item for a key that does not exist', async () => {
    expect(await store.touchLastUsed(hashApiKey('sbe_ghost-ghost-ghost-ghost-ghost-ghost'), T0)).toBe(false);
    expect(await rawItems()).toEqual([]);
  });
});

describe('items that are not well-formed API key records', () => {
  // Hand-edited items (in the console, by a migration gone wrong): each is refused with a message
  // naming the item and what is wrong, rather than read into a guessed identity.
  const digest = hashApiKey('sbe_hand-edited-hand-edited-hand-edited');
  const wellFormed = {
    pk: `APIKEY#${digest}`,
    sk: 'APIKEY',
    id: digest.slice(0, 12),
    prefix: 'sbe_hand-edi',
    owner: 'alice',
    name: 'edited',
    status: 'active',
    createdAt: T0.toISOString(),
  };
  const id = digest.slice(0, 12);

  it.each([
    ['no status', { status: undefined }, `API key item ${id} is missing the string attribute "status"`],
    ['an unknown status', { status: 'enabled' }, `API key item ${id} has unknown status "enabled"`],
    ['no id', { id: undefined }, 'API key item (no id) is missing the string attribute "id"'],
    ['a numeric id', { id: 7 }, 'API key item (no id) is missing the string attribute "id"'],
    ['no prefix', { prefix: undefined }, `API key item ${id} is missing the string attribute "prefix"`],
    ['no owner', { owner: undefined }, `API key item ${id} is missing the string attribute "owner"`],
    ['a numeric name', { name: 42 }, `API key item ${id} is missing the string attribute "name"`],
    [
      'no creation time',
      { createdAt: undefined },
      `API key item ${id} is missing the string attribute "createdAt"`,
    ],
    [
      'a numeric last use',
      { lastUsedAt: 1 },
      `API key item ${id} is missing the string attribute "lastUsedAt"`,
    ],
    [
      'a revocation time that is not text',
      { revokedAt: true },
      `API key item ${id} is missing the string attribute "revokedAt"`,
    ],
  ])('refuses an item with %s', async (_what, change, message) => {
    const item = Object.fromEntries(
      Object.entries({ ...wellFormed, ...change }).filter(([, value]) => value !== undefined),
    );
    await table.doc.send(new PutCommand({ TableName: table.tableName, Item: item }));
    await expect(store.getByDigest(digest)).rejects.toThrow(new Error(message));
    await expect(store.list()).rejects.toThrow(new Error(message));
  });

  // A key whose partition key holds no digest (too short, upper-case hex) is found by the Scan
  // of all API keys and refused there.
  it.each([
    ['a short digest', 'APIKEY#abc'],
    ['an upper-case digest', `APIKEY#${digest.toUpperCase()}`],
    ['a digest with more after it', `APIKEY#${digest}0`],
    ['a digest with more before it', `APIKEY#0${digest}`],
  ])('refuses an item with %s', async (_what, pk) => {
    await table.doc.send(new PutCommand({ TableName: table.tableName, Item: { ...wellFormed, pk } }));
    await expect(store.list()).rejects.toThrow(new Error(`API key item ${id} has malformed keys`));
  });

  // The optional times, when present and text, are read back as they are.
  it('reads the optional times when they are text', async () => {
    const item = {
      ...wellFormed,
      status: 'revoked',
      lastUsedAt: at(1).toISOString(),
      revokedAt: at(2).toISOString(),
    };
    await table.doc.send(new PutCommand({ TableName: table.tableName, Item: item }));
    const { pk: _pk, sk: _sk, ...fields } = item;
    expect(await store.getByDigest(digest)).toEqual({ digest, ...fields });
  });
});
