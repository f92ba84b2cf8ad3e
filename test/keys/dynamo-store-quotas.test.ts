/**
 * The key store counting each owner's active keys on their quota counter
 * (`lib/storage/quotas.ts`), against dynalite: a create holds its place before anything is
 * written and gives it back when nothing was; a revoke frees the place of an active key once.
 * After every change the counter is exact and holds nothing in flight.
 */
import { GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { type ApiKeyRecord, DynamoApiKeyStore, hashApiKey, importApiKey, issueApiKey } from '../../lib/keys';
import { ApiKeyConflictError } from '../../lib/keys/store';
import { DynamoOwnerQuotas, QuotaExceededError } from '../../lib/storage/quotas';
import { useFreshTable } from '../helpers/dynalite';

const table = useFreshTable();
const T0 = new Date('2025-03-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

/** Two active keys per owner. */
let store: DynamoApiKeyStore;
let quotas: DynamoOwnerQuotas;
beforeEach(() => {
  quotas = new DynamoOwnerQuotas({
    doc: table.doc,
    tableName: table.tableName,
    quotas: { maxSystems: 1, maxKeys: 2, maxBytes: 1 },
    usage: async (owner) => ({ systems: 0, bytes: 0, keys: await store.activeCount(owner) }),
  });
  store = new DynamoApiKeyStore({ doc: table.doc, tableName: table.tableName, quotas });
});

/** The owner's counter: active keys counted, and the changes still in flight. */
async function counted(owner: string) {
  const { Item } = await table.doc.send(
    new GetCommand({
      TableName: table.tableName,
      Key: { pk: `OWNER#${owner}`, sk: 'QUOTA' },
      ConsistentRead: true,
    }),
  );
  if (Item === undefined) return undefined;
  return { keys: Item.keys, holds: Object.keys(Item).filter((name) => name.startsWith('hold_')).length };
}

async function keyItems() {
  const { Items = [] } = await table.doc.send(new ScanCommand({ TableName: table.tableName }));
  return Items.filter((item) => item.sk !== 'QUOTA');
}

describe('creating keys', () => {
  // Two fit; the third is refused before anything of it is written.
  it('counts each active key and refuses one past the quota', async () => {
    await issueApiKey(store, { owner: 'alice', name: 'one' }, at(0));
    expect(await counted('alice')).toEqual({ keys: 1, holds: 0 });
    await issueApiKey(store, { owner: 'alice', name: 'two' }, at(1));
    expect(await counted('alice')).toEqual({ keys: 2, holds: 0 });
    const before = await keyItems();
    await expect(issueApiKey(store, { owner: 'alice', name: 'three' }, at(2))).rejects.toMatchObject({
      name: 'QuotaExceededError',
      quota: 'keys',
      limit: 2,
    });
    expect(await keyItems()).toEqual(before);
    expect(await counted('alice')).toEqual({ keys: 2, holds: 0 });
  });

  // A revoked record (say, copied over from another table) takes no place: it is stored even
  // when the owner's active keys fill the quota, and the count stays.
  it('stores a revoked record without counting it', async () => {
    await issueApiKey(store, { owner: 'alice', name: 'one' }, at(0));
    await issueApiKey(store, { owner: 'alice', name: 'two' }, at(1));
    const digest = hashApiKey('sbe_an-old-key-an-old-key-an-old-key-an-old');
    const old: ApiKeyRecord = {
      digest,
      id: digest.slice(0, 12),
      prefix: 'sbe_an-old-k',
      owner: 'alice',
      name: 'old',
      status: 'revoked',
      createdAt: at(-60).toISOString(),
      revokedAt: at(-30).toISOString(),
    };
    await store.put(old);
    expect((await store.listByOwner('alice')).map((record) => record.name)).toEqual(['old', 'one', 'two']);
    expect(await counted('alice')).toEqual({ keys: 2, holds: 0 });
  });

  // The same record twice (its index entry is there): the place held for it is given back.
  it('gives the place back when the key exists already', async () => {
    const { record } = await issueApiKey(store, { owner: 'alice', name: 'one' }, at(0));
    await expect(store.put(record)).rejects.toBeInstanceOf(ApiKeyConflictError);
    expect(await counted('alice')).toEqual({ keys: 1, holds: 0 });
    // Importing it again is the same conflict, answered with the stored record.
    expect(
      await importApiKey(store, 'sbe_importedimportedimported0123456789', { owner: 'bob', name: 'x' }, at(1)),
    ).toMatchObject({ owner: 'bob' });
    await importApiKey(store, 'sbe_importedimportedimported0123456789', { owner: 'bob', name: 'x' }, at(2));
    expect(await counted('bob')).toEqual({ keys: 1, holds: 0 });
  });

  // mallory's record has the digest of alice's key: her index entry is written, the key write is
  // refused, and both the entry and her place go again.
  it('gives the place back when another owner holds the digest', async () => {
    const { record } = await issueApiKey(store, { owner: 'alice', name: 'one' }, at(0));
    await expect(store.put({ ...record, owner: 'mallory' })).rejects.toBeInstanceOf(ApiKeyConflictError);
    expect(await counted('mallory')).toEqual({ keys: 0, holds: 0 });
    expect((await keyItems()).filter((item) => item.pk === 'OWNER#mallory')).toEqual([]);
    expect(await store.listByOwner('alice')).toEqual([record]);
  });
});

describe('revoking keys', () => {
  // A revoke frees the key's place; revoking it again frees nothing more.
  it('frees an active key’s place, once', async () => {
    const one = await issueApiKey(store, { owner: 'alice', name: 'one' }, at(0));
    await issueApiKey(store, { owner: 'alice', name: 'two' }, at(1));
    expect(await store.revoke(one.record.digest, at(2))).toMatchObject({
      status: 'revoked',
      revokedAt: at(2).toISOString(),
    });
    expect(await counted('alice')).toEqual({ keys: 1, holds: 0 });
    expect(await store.revoke(one.record.digest, at(3))).toMatchObject({ revokedAt: at(2).toISOString() });
    expect(await counted('alice')).toEqual({ keys: 1, holds: 0 });
    // The freed place takes a new key; the one after is refused.
    await issueApiKey(store, { owner: 'alice', name: 'three' }, at(4));
    await expect(issueApiKey(store, { owner: 'alice', name: 'four' }, at(5))).rejects.toBeInstanceOf(
      QuotaExceededError,
    );
  });

  // Two requests revoke the same key at once: both find it active and hold the owner's
  // counter; the other's write lands first, so this one's finds the key revoked already. The
  // place is freed once, by the revoke that made the change, not twice.
  it('frees the place once when two revokes of a key overlap', async () => {
    const one = await issueApiKey(store, { owner: 'alice', name: 'one' }, at(0));
    await issueApiKey(store, { owner: 'alice', name: 'two' }, at(1));
    let overtaken = false;
    const racing = new Proxy(table.doc, {
      get(target, property, receiver) {
        if (property !== 'send') return Reflect.get(target, property, receiver);
        return async (command: Parameters<typeof target.send>[0]) => {
          const key = (command.input as { Key?: { sk?: string } }).Key;
          if (command instanceof UpdateCommand && key?.sk === 'APIKEY' && !overtaken) {
            overtaken = true;
            expect(await store.revoke(one.record.digest, at(2))).toMatchObject({ status: 'revoked' });
          }
          return target.send(command);
        };
      },
    });
    const slow = new DynamoApiKeyStore({ doc: racing, tableName: table.tableName, quotas });
    expect(await slow.revoke(one.record.digest, at(3))).toMatchObject({
      status: 'revoked',
      revokedAt: at(2).toISOString(),
    });
    expect(overtaken).toBe(true);
    expect(await counted('alice')).toEqual({ keys: 1, holds: 0 });
  });

  it('returns undefined for an unknown key and writes nothing', async () => {
    expect(await store.revoke(hashApiKey('sbe_unknown-unknown-unknown-unknown-unknown'))).toBeUndefined();
    expect(await counted('alice')).toBeUndefined();
    expect(await keyItems()).toEqual([]);
  });
});
