/**
 * The key store behind a DynamoDB that fails on purpose (`startFaultProxy`: DynamoDB's own error
 * answers, the SDK's own retries): a write whose answer was lost and that the SDK sent again, a
 * refused write whose first attempt was throttled, an index clean-up that fails, and what the
 * store asks DynamoDB for on the wire. The table is read back directly, past the proxy.
 */
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDynamoClients } from '../../lib/aws/dynamo';
import { DynamoApiKeyStore, hashApiKey, importApiKey, issueApiKey } from '../../lib/keys';
import { ApiKeyConflictError } from '../../lib/keys/store';
import { isStoreUnavailable } from '../../lib/storage/faults';
import { DynamoOwnerQuotas } from '../../lib/storage/quotas';
import { ensureTable } from '../../lib/storage/table';
import { type RunningDynalite, startDynalite } from '../helpers/dynalite';
import { type Fault, type FaultProxy, type FaultRule, startFaultProxy } from '../helpers/fault-proxy';

let dynalite: RunningDynalite;
let proxy: FaultProxy;
let direct: ReturnType<typeof createDynamoClients>;
let proxied: ReturnType<typeof createDynamoClients>;

beforeAll(async () => {
  dynalite = await startDynalite();
  proxy = await startFaultProxy(dynalite.endpoint);
  direct = createDynamoClients({ endpoint: dynalite.endpoint, region: 'us-east-1', env: {} });
  // As the functions build theirs (3 attempts), with retries that do not sleep.
  proxied = createDynamoClients({
    endpoint: proxy.endpoint,
    region: 'us-east-1',
    env: {},
    retry: { retryDelayMs: () => 1 },
  });
});

afterAll(async () => {
  direct.client.destroy();
  proxied.client.destroy();
  await proxy.close();
  await dynalite.close();
});

let tableName: string;
/** The store as the functions use it: every call through the proxy. */
let store: DynamoApiKeyStore;
/** The same table, read and written directly. */
let plain: DynamoApiKeyStore;

beforeEach(async () => {
  tableName = `keys-${randomUUID()}`;
  await ensureTable(direct.client, tableName);
  store = new DynamoApiKeyStore({ doc: proxied.doc, tableName });
  plain = new DynamoApiKeyStore({ doc: direct.doc, tableName });
  proxy.reset();
});

const T0 = new Date('2025-03-01T12:00:00.000Z');
const DEV_KEY = 'sbe_faultsfaultsfaults0123456789abcdefghijklmnop';

/** `fault` on the given attempts of the call at position `index` (0-based). */
const at =
  (index: number, attempts: number[], fault: Fault): FaultRule =>
  (call, attempt) =>
    call.index === index && attempts.includes(attempt) ? fault : undefined;
const lostAnswer: Fault = { kind: 'appliedThenError', error: 'InternalServerError' };
const throttled: Fault = { kind: 'error', error: 'ProvisionedThroughputExceededException' };

async function items() {
  const { Items = [] } = await direct.doc.send(new ScanCommand({ TableName: tableName }));
  return Items;
}
const indexEntries = async (owner: string) =>
  (await items()).filter((item) => item.pk === `OWNER#${owner}`).map((item) => item.digest);

describe('put after a lost answer', () => {
  // DynamoDB applied the write and the answer was lost; the SDK's retry then meets its own item
  // and is refused. The store reads the item back, sees exactly what it wrote, and succeeds.
  it.each([
    ['the index entry', 0],
    ['the key', 1],
  ])('takes %s found on the retry as its own write', async (_what, position) => {
    proxy.reset(at(position, [1], lostAnswer));
    const { record } = await issueApiKey(store, { owner: 'alice', name: 'ci' }, T0);
    expect(proxy.calls.map((call) => [call.operation, call.attempts])).toEqual(
      position === 0
        ? [
            ['PutItem', 2],
            ['GetItem', 1],
            ['PutItem', 1],
          ]
        : [
            ['PutItem', 1],
            ['PutItem', 2],
            ['GetItem', 1],
          ],
    );
    expect(await plain.listByOwner('alice')).toEqual([record]);
    expect(await indexEntries('alice')).toEqual([record.digest]);
  });

  // The retry is refused because another owner's key has this digest already; the first
  // attempt had been throttled, so nothing of ours was written. The item read back is not
  // ours: a conflict, and mallory's index entry goes again.
  it('does not take another owner’s key for its own write', async () => {
    const alice = await importApiKey(plain, DEV_KEY, { owner: 'alice', name: 'dev' }, T0);
    proxy.reset(at(1, [1], throttled));
    await expect(store.put({ ...alice, owner: 'mallory', name: 'stolen' })).rejects.toBeInstanceOf(
      ApiKeyConflictError,
    );
    expect(proxy.calls[1]).toMatchObject({ operation: 'PutItem', attempts: 2 });
    expect(await plain.getByDigest(alice.digest)).toEqual(alice);
    expect(await indexEntries('mallory')).toEqual([]);
  });

  // Importing the same key again (the local server does on every start) is a conflict, which
  // importApiKey answers with the stored record. Here the index write's first attempt was
  // throttled, so its retry met the existing entry, identical to the one it writes: that entry
  // is the existing key's, and it must stay, or the key vanishes from its owner's listing.
  it('keeps the index entry of the same key imported again after a throttled attempt', async () => {
    const first = await importApiKey(plain, DEV_KEY, { owner: 'alice', name: 'dev' }, T0);
    proxy.reset(at(0, [1], throttled));
    expect(await importApiKey(store, DEV_KEY, { owner: 'alice', name: 'dev' }, T0)).toEqual(first);
    expect(proxy.calls[0]).toMatchObject({ operation: 'PutItem', attempts: 2 });
    expect(await plain.listByOwner('alice')).toEqual([first]);
  });
});

describe('put under faults that last', () => {
  // Every attempt of the index write throttled: the SDK's error comes out as it is (the
  // service answers 503), not as a conflict, and nothing is written.
  it('passes on a failure of the index write and writes nothing', async () => {
    proxy.reset(at(0, [1, 2, 3], throttled));
    const failure = issueApiKey(store, { owner: 'alice', name: 'ci' }, T0);
    await expect(failure).rejects.toSatisfy(isStoreUnavailable);
    await expect(failure).rejects.not.toBeInstanceOf(ApiKeyConflictError);
    expect(await items()).toEqual([]);
  });

  // The key write failing for good: its index entry is removed again.
  it('removes the index entry again when the key write fails', async () => {
    proxy.reset(at(1, [1, 2, 3], throttled));
    const failure = issueApiKey(store, { owner: 'alice', name: 'ci' }, T0);
    await expect(failure).rejects.toSatisfy(isStoreUnavailable);
    await expect(failure).rejects.not.toBeInstanceOf(ApiKeyConflictError);
    expect(proxy.calls.map((call) => call.operation)).toEqual(['PutItem', 'PutItem', 'DeleteItem']);
    expect(await items()).toEqual([]);
  });

  // mallory's key has the digest of alice's (it cannot happen by chance; an import of the same
  // text can). The clean-up of mallory's index entry fails as well: the caller still learns of
  // the conflict, and the entry left dangling shows mallory nothing of alice's key.
  it('reports the conflict even when the clean-up fails, and lists nothing through a dangling entry', async () => {
    const alice = await importApiKey(plain, DEV_KEY, { owner: 'alice', name: 'dev' }, T0);
    proxy.reset((call) => (call.operation === 'DeleteItem' ? throttled : undefined));
    await expect(store.put({ ...alice, owner: 'mallory' })).rejects.toBeInstanceOf(ApiKeyConflictError);
    expect(await indexEntries('mallory')).toEqual([alice.digest]);
    expect(await plain.listByOwner('mallory')).toEqual([]);
    expect(await plain.listByOwner('alice')).toEqual([alice]);
  });

  // Whose key holds the digest cannot be read: the entry is taken for mallory's own and removed,
  // and the caller learns of the conflict, not of the failed read.
  it('reports the conflict when the owner of the existing key cannot be read', async () => {
    const alice = await importApiKey(plain, DEV_KEY, { owner: 'alice', name: 'dev' }, T0);
    proxy.reset((call) => (call.operation === 'GetItem' ? throttled : undefined));
    await expect(store.put({ ...alice, owner: 'mallory' })).rejects.toBeInstanceOf(ApiKeyConflictError);
    expect(proxy.calls.map((call) => [call.operation, call.attempts])).toEqual([
      ['PutItem', 1],
      ['PutItem', 1],
      ['GetItem', 3],
      ['DeleteItem', 1],
    ]);
    expect(await indexEntries('mallory')).toEqual([]);
    expect(await plain.listByOwner('alice')).toEqual([alice]);
  });
});

describe('marking a key used under faults', () => {
  // The write refused by its condition means "used within the last minute": false. A throttle
  // that outlasts the retries is not that, and comes out as the SDK's error.
  it('passes on a failure that is not a refused condition', async () => {
    const { record } = await issueApiKey(plain, { owner: 'alice', name: 'ci' }, T0);
    proxy.reset(() => throttled);
    await expect(store.touchLastUsed(record.digest, T0)).rejects.toSatisfy(isStoreUnavailable);
    proxy.reset();
    expect(await store.touchLastUsed(record.digest, T0)).toBe(true);
    expect(await store.touchLastUsed(record.digest, T0)).toBe(false);
  });

  // The engine function waits for this write before it answers, so a DynamoDB that does not
  // answer must not hold a finished answer back for the SDK's three attempts: the store gives
  // up at its deadline (500 ms by default; 50 ms here, against attempts that time out after
  // 100 ms), during the first attempt, and the key stays as it was.
  it('gives up at its deadline instead of waiting out the retries', async () => {
    const { record } = await issueApiKey(plain, { owner: 'alice', name: 'ci' }, T0);
    proxy.reset((call) => (call.operation === 'UpdateItem' ? { kind: 'hang' } : undefined));
    const quick = createDynamoClients({
      endpoint: proxy.endpoint,
      region: 'us-east-1',
      env: {},
      retry: { retryDelayMs: () => 1, attemptTimeoutMs: 100 },
    });
    try {
      const hurried = new DynamoApiKeyStore({ doc: quick.doc, tableName, touchDeadlineMs: 50 });
      await expect(hurried.touchLastUsed(record.digest, T0)).rejects.toMatchObject({ name: 'AbortError' });
      expect(
        proxy.calls.filter((call) => call.operation === 'UpdateItem').map((call) => call.attempts),
      ).toEqual([1]);
      expect((await plain.getByDigest(record.digest))?.lastUsedAt).toBeUndefined();
    } finally {
      quick.client.destroy();
    }
  });
});

describe('what the store asks DynamoDB for', () => {
  // dynalite is always consistent, so only the request shows this: every read that must see a
  // write just made (a key used right after it was created, a listing right after a create or
  // revoke, the check of a write whose answer was lost) asks for a strongly consistent read;
  // DynamoDB's default, an eventually consistent read, may miss a write of the last second.
  it('asks for strongly consistent reads', async () => {
    proxy.reset(at(1, [1], lostAnswer));
    const { record } = await issueApiKey(store, { owner: 'alice', name: 'ci' }, T0);
    await store.getByDigest(record.digest);
    await store.listByOwner('alice');
    const reads = proxy.calls.filter((call) => call.operation !== 'PutItem');
    expect(
      reads.map((call) => [
        call.operation,
        call.body.ConsistentRead ?? call.body.RequestItems?.[tableName]?.ConsistentRead,
      ]),
    ).toEqual([
      ['GetItem', true],
      ['GetItem', true],
      ['Query', true],
      ['BatchGetItem', true],
    ]);
  });

  // A revoke is one conditional write. Counting quotas, it reads the key first (an unknown key
  // costs that read only), and touches the owner's counter (a hold, then its end with the
  // freed place) only when it frees a place, i.e. when the key was active.
  it('revokes with one write, and touches the quota counter only to free a place', async () => {
    const quotas = new DynamoOwnerQuotas({
      doc: proxied.doc,
      tableName,
      quotas: { maxSystems: 1, maxKeys: 5, maxBytes: 1 },
      usage: async (owner) => ({ systems: 0, bytes: 0, keys: await plain.activeCount(owner) }),
    });
    const counting = new DynamoApiKeyStore({ doc: proxied.doc, tableName, quotas });
    const { record } = await issueApiKey(counting, { owner: 'alice', name: 'ci' }, T0);
    const revoked = async (by: DynamoApiKeyStore, digest: string) => {
      proxy.reset();
      await by.revoke(digest, T0);
      return proxy.calls.map((call) => `${call.operation} ${call.body.Key.sk.S}`);
    };
    expect(await revoked(counting, record.digest)).toEqual([
      'GetItem APIKEY',
      'UpdateItem QUOTA',
      'UpdateItem APIKEY',
      'UpdateItem QUOTA',
    ]);
    expect(await revoked(counting, record.digest)).toEqual(['GetItem APIKEY', 'UpdateItem APIKEY']);
    expect(await revoked(counting, hashApiKey('sbe_unknown-unknown-unknown-unknown'))).toEqual([
      'GetItem APIKEY',
    ]);
    expect(await revoked(store, record.digest)).toEqual(['UpdateItem APIKEY']);
  });

  it('never reads or writes with an unknown digest shape', async () => {
    expect(await store.getByDigest(hashApiKey(DEV_KEY).toUpperCase())).toBeUndefined();
    expect(await store.revoke('')).toBeUndefined();
    expect(await store.touchLastUsed('not-a-digest', T0)).toBe(false);
    expect(proxy.calls).toEqual([]);
  });
});
