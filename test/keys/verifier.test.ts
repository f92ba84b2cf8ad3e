import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type ApiKeyRecord,
  type ApiKeyStore,
  createApiKeyVerifier,
  DynamoApiKeyStore,
  importApiKey,
  issueApiKey,
} from '../../lib/keys';
import { resolveCacheTtlMs } from '../../lib/keys/verifier';
import { useFreshTable } from '../helpers/dynalite';

const table = useFreshTable();
let store: DynamoApiKeyStore;
beforeEach(() => {
  store = new DynamoApiKeyStore({ doc: table.doc, tableName: table.tableName });
});

const T0 = Date.parse('2025-03-01T12:00:00.000Z');

/** A hand-moved clock: the tests advance it instead of sleeping. */
function manualClock(start = T0) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/**
 * The real DynamoDB store with its reads and writes counted. Optional hooks let a test hold a read
 * after DynamoDB answered, or make the lastUsedAt write fail.
 */
function countingStore(
  inner: ApiKeyStore,
  hooks: { afterRead?: () => Promise<void>; failTouch?: Error } = {},
) {
  const counts = { reads: 0, touches: 0, writes: 0 };
  const counted: ApiKeyStore = {
    put: (record) => inner.put(record),
    list: (filter) => inner.list(filter),
    listByOwner: (owner) => inner.listByOwner(owner),
    getByOwnerAndId: (owner, id) => inner.getByOwnerAndId(owner, id),
    revoke: (digest, now) => inner.revoke(digest, now),
    onRevoked: (listener) => inner.onRevoked(listener),
    getByDigest: async (digest) => {
      counts.reads += 1;
      const record = await inner.getByDigest(digest);
      await hooks.afterRead?.();
      return record;
    },
    touchLastUsed: async (digest, now) => {
      counts.touches += 1;
      if (hooks.failTouch) throw hooks.failTouch;
      const wrote = await inner.touchLastUsed(digest, now);
      if (wrote) counts.writes += 1;
      return wrote;
    },
  };
  return { store: counted, counts };
}

/**
 * A gate a store read stops at: `reached` resolves once the read has its answer and is
 * waiting; `release` lets it go on. Tests await `reached` instead of sleeping.
 */
function readGate() {
  let signalReached = () => {};
  let release = () => {};
  const reached = new Promise<void>((resolve) => {
    signalReached = resolve;
  });
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const afterRead = () => {
    signalReached();
    return held;
  };
  return { reached, release, afterRead };
}

async function issue(owner = 'alice', name = 'CI') {
  return issueApiKey(store, { owner, name }, new Date(T0));
}

async function lastUsedAt(record: ApiKeyRecord) {
  return (await store.getByDigest(record.digest))?.lastUsedAt;
}

describe('verify', () => {
  it('returns the public identity of an active key, and nothing secret', async () => {
    const { key, record } = await issue('alice', 'CI pipeline');
    const verifier = createApiKeyVerifier(store, { now: manualClock().now });
    const identity = await verifier.verify(key);
    expect(identity).toEqual({ id: record.id, prefix: record.prefix, owner: 'alice', name: 'CI pipeline' });
    expect(JSON.stringify(identity)).not.toContain(record.digest);
    await verifier.settled();
  });

  it('answers undefined for an unknown key and for a revoked one alike', async () => {
    const { key, record } = await issue();
    await store.revoke(record.digest);
    const verifier = createApiKeyVerifier(store, { now: manualClock().now });
    expect(await verifier.verify('sbe_unknownkeyunknownkeyunknownkey0000000')).toBeUndefined();
    expect(await verifier.verify(key)).toBeUndefined();
  });

  it('does not touch the database for values that cannot be keys', async () => {
    const { store: counted, counts } = countingStore(store);
    const verifier = createApiKeyVerifier(counted, { now: manualClock().now });
    for (const value of [undefined, '', 'Bearer abc', 'sbe_short', 'x'.repeat(5000), 12]) {
      expect(await verifier.verify(value)).toBeUndefined();
    }
    expect(counts.reads).toBe(0);
  });

  it('serves repeat requests from the cache: one GetItem per key per TTL', async () => {
    const { key } = await issue();
    const { store: counted, counts } = countingStore(store);
    const clock = manualClock();
    const verifier = createApiKeyVerifier(counted, { now: clock.now, cacheTtlMs: 30_000 });
    for (let i = 0; i < 5; i++) expect(await verifier.verify(key)).toBeDefined();
    clock.advance(29_999);
    await verifier.verify(key);
    expect(counts.reads).toBe(1);
    clock.advance(1);
    await verifier.verify(key);
    expect(counts.reads).toBe(2);
    await verifier.settled();
  });

  it('shares one GetItem between concurrent first requests for the same key', async () => {
    // Models a burst of requests hitting a cold Lambda instance with one client's key.
    const { key } = await issue();
    const { store: counted, counts } = countingStore(store);
    const verifier = createApiKeyVerifier(counted, { now: manualClock().now });
    const results = await Promise.all(Array.from({ length: 8 }, () => verifier.verify(key)));
    expect(results.every((identity) => identity?.owner === 'alice')).toBe(true);
    expect(counts.reads).toBe(1);
    await verifier.settled();
  });

  it('does not cache misses: a key created after a failed attempt works at once', async () => {
    const key = 'sbe_createdaftertheattempt0123456789abcdefghij';
    const verifier = createApiKeyVerifier(store, { now: manualClock().now });
    expect(await verifier.verify(key)).toBeUndefined();
    await importApiKey(store, key, { owner: 'alice', name: 'late' });
    expect(await verifier.verify(key)).toMatchObject({ owner: 'alice', name: 'late' });
    await verifier.settled();
  });

  it('keeps at most maxCacheEntries keys, dropping the least recently used', async () => {
    const [a, b, c] = await Promise.all([issue('a'), issue('b'), issue('c')]);
    const { store: counted, counts } = countingStore(store);
    const verifier = createApiKeyVerifier(counted, { now: manualClock().now, maxCacheEntries: 2 });
    await verifier.verify(a!.key);
    await verifier.verify(b!.key);
    await verifier.verify(a!.key); // a is now the most recently used
    await verifier.verify(c!.key); // evicts b
    expect(counts.reads).toBe(3);
    await verifier.verify(a!.key);
    expect(counts.reads).toBe(3);
    await verifier.verify(b!.key);
    expect(counts.reads).toBe(4);
    await verifier.settled();
  });

  it('with a TTL of 0 reads the store on every request', async () => {
    const { key } = await issue();
    const { store: counted, counts } = countingStore(store);
    const verifier = createApiKeyVerifier(counted, { now: manualClock().now, cacheTtlMs: 0 });
    await verifier.verify(key);
    await verifier.verify(key);
    expect(counts.reads).toBe(2);
    await verifier.settled();
  });

  it('rejects (rather than answering "invalid key") when the store itself fails', async () => {
    const { key } = await issue();
    const broken = new DynamoApiKeyStore({ doc: table.doc, tableName: 'no-such-table' });
    const verifier = createApiKeyVerifier(broken, { now: manualClock().now });
    await expect(verifier.verify(key)).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });
});

describe('revocation', () => {
  it('by another process is honoured once the cache entry expires', async () => {
    // Models the CLI revoking a key while a Lambda instance has it cached: the item changes in
    // DynamoDB, and nothing in this process hears of it.
    const { key, record } = await issue();
    const clock = manualClock();
    const verifier = createApiKeyVerifier(store, { now: clock.now, cacheTtlMs: 30_000 });
    expect(await verifier.verify(key)).toBeDefined();

    await table.doc.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { pk: `APIKEY#${record.digest}`, sk: 'APIKEY' },
        UpdateExpression: 'SET #status = :revoked',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':revoked': 'revoked' },
      }),
    );
    clock.advance(29_000);
    expect(await verifier.verify(key)).toBeDefined();
    clock.advance(1_000);
    expect(await verifier.verify(key)).toBeUndefined();
    await verifier.settled();
  });

  // The local server: the connect function revokes through its store, the engine function
  // verifies through its own; both are in one process, on one table.
  it('through another store of this process on the same table is honoured at once', async () => {
    const { key, record } = await issue();
    const verifier = createApiKeyVerifier(store, { now: manualClock().now, cacheTtlMs: 60_000 });
    expect(await verifier.verify(key)).toBeDefined();
    await new DynamoApiKeyStore({ doc: table.doc, tableName: table.tableName }).revoke(record.digest);
    expect(await verifier.verify(key)).toBeUndefined();
    await verifier.settled();
  });

  it('through the same store instance is honoured at once', async () => {
    const { key, record } = await issue();
    const verifier = createApiKeyVerifier(store, { now: manualClock().now, cacheTtlMs: 60_000 });
    expect(await verifier.verify(key)).toBeDefined();
    await store.revoke(record.digest);
    expect(await verifier.verify(key)).toBeUndefined();
    await verifier.settled();
  });

  it('that lands while a lookup is in flight keeps the stale answer out of the cache', async () => {
    const { key, record } = await issue();
    const gate = readGate();
    const { store: counted } = countingStore(store, { afterRead: gate.afterRead });
    const verifier = createApiKeyVerifier(counted, { now: manualClock().now });

    const inFlight = verifier.verify(key);
    await gate.reached; // DynamoDB has answered "active"; the answer is held
    await counted.revoke(record.digest);
    gate.release();
    expect(await inFlight).toBeDefined(); // it started before the revoke
    expect(await verifier.verify(key)).toBeUndefined(); // but was not cached
    await verifier.settled();
  });

  it('stops listening after close()', async () => {
    const { key, record } = await issue();
    const verifier = createApiKeyVerifier(store, { now: manualClock().now });
    await verifier.verify(key);
    verifier.close();
    await store.revoke(record.digest);
    // No longer told, so the cached entry lives out its TTL.
    expect(await verifier.verify(key)).toBeDefined();
    await verifier.settled();
  });
});

describe('lastUsedAt', () => {
  it('is written on first use, not again within a minute, and again after it', async () => {
    const { key, record } = await issue();
    const clock = manualClock();
    const { store: counted, counts } = countingStore(store);
    const verifier = createApiKeyVerifier(counted, { now: clock.now, cacheTtlMs: 30_000 });

    await verifier.verify(key);
    await verifier.settled();
    expect(await lastUsedAt(record)).toBe(new Date(T0).toISOString());

    clock.advance(30_000); // cache expired, re-read: lastUsedAt is 30 s old
    await verifier.verify(key);
    clock.advance(30_000); // exactly a minute: still no write
    await verifier.verify(key);
    await verifier.settled();
    expect(counts.touches).toBe(1);
    expect(await lastUsedAt(record)).toBe(new Date(T0).toISOString());

    clock.advance(1);
    await verifier.verify(key);
    await verifier.settled();
    expect(counts.writes).toBe(2);
    expect(await lastUsedAt(record)).toBe(new Date(T0 + 60_001).toISOString());
  });

  it('is written once a minute across instances: the slower one loses the condition quietly', async () => {
    // Two Lambda instances read the record before either wrote lastUsedAt; both try to write it.
    const { key, record } = await issue();
    const clock = manualClock();
    const gate = readGate();
    const one = countingStore(store);
    const two = countingStore(new DynamoApiKeyStore({ doc: table.doc, tableName: table.tableName }), {
      afterRead: gate.afterRead,
    });
    const first = createApiKeyVerifier(one.store, { now: clock.now });
    const second = createApiKeyVerifier(two.store, { now: clock.now });

    const secondVerify = second.verify(key);
    await gate.reached; // read done (no lastUsedAt yet), answer held
    await first.verify(key);
    await first.settled();
    clock.advance(10_000);
    gate.release();
    expect(await secondVerify).toBeDefined();
    await second.settled();

    expect(two.counts.touches).toBe(1);
    expect(two.counts.writes).toBe(0);
    expect(one.counts.writes).toBe(1);
    expect(await lastUsedAt(record)).toBe(new Date(T0).toISOString());
  });

  it('does not hold up verify, and a failed write is reported, never an unhandled rejection', async () => {
    const { key } = await issue();
    const reported: Array<{ error: unknown; keyId: string }> = [];
    const { store: counted } = countingStore(store, { failTouch: new Error('throttled') });
    const verifier = createApiKeyVerifier(counted, {
      now: manualClock().now,
      onBackgroundError: (error, keyId) => {
        reported.push({ error, keyId });
        throw new Error('even a throwing reporter is contained');
      },
    });
    const identity = await verifier.verify(key);
    expect(identity).toBeDefined();
    await verifier.settled();
    expect(reported).toEqual([{ error: new Error('throttled'), keyId: identity?.id }]);
  });
});

describe('the default background error reporter', () => {
  // One line on stderr naming the key's public id and the failure, whatever was thrown.
  it.each<[unknown, string]>([
    [new Error('throttled'), 'Error: throttled'],
    ['a bare string', 'a bare string'],
  ])('reports %j on stderr', async (failure, words) => {
    const { key } = await issue();
    const { store: counted } = countingStore(store, { failTouch: failure as Error });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const verifier = createApiKeyVerifier(counted, { now: manualClock().now });
      const identity = await verifier.verify(key);
      await verifier.settled();
      expect(warn.mock.calls).toEqual([[`api key ${identity?.id}: lastUsedAt update failed: ${words}`]]);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('maxCacheEntries', () => {
  // One key at least; a whole number.
  it('takes 1 and refuses 0, negatives and fractions', () => {
    expect(() => createApiKeyVerifier(store, { maxCacheEntries: 1 })).not.toThrow();
    for (const maxCacheEntries of [0, -1, 1.5]) {
      expect(() => createApiKeyVerifier(store, { maxCacheEntries })).toThrow(
        new RangeError(`maxCacheEntries must be a whole number >= 1, got ${maxCacheEntries}`),
      );
    }
  });
});

describe('resolveCacheTtlMs', () => {
  it('defaults to 30 s, reads API_KEY_CACHE_TTL_MS, lets the option win, and caps at 60 s', () => {
    expect(resolveCacheTtlMs(undefined, {})).toBe(5_000);
    expect(resolveCacheTtlMs(undefined, { API_KEY_CACHE_TTL_MS: '5000' })).toBe(5_000);
    // Set but empty is a configuration slip, refused like every other variable's.
    expect(() => resolveCacheTtlMs(undefined, { API_KEY_CACHE_TTL_MS: ' ' })).toThrow(/set but empty/);
    expect(resolveCacheTtlMs(undefined, { API_KEY_CACHE_TTL_MS: '600000' })).toBe(60_000);
    expect(resolveCacheTtlMs(1_000, { API_KEY_CACHE_TTL_MS: '5000' })).toBe(1_000);
    expect(resolveCacheTtlMs(90_000, {})).toBe(60_000);
    expect(resolveCacheTtlMs(0, {})).toBe(0);
  });

  it('refuses values that are not whole milliseconds, naming the setting', () => {
    expect(() => resolveCacheTtlMs(undefined, { API_KEY_CACHE_TTL_MS: '30s' })).toThrow(
      /API_KEY_CACHE_TTL_MS/,
    );
    expect(() => resolveCacheTtlMs(undefined, { API_KEY_CACHE_TTL_MS: '-1' })).toThrow(
      /API_KEY_CACHE_TTL_MS/,
    );
    expect(() => resolveCacheTtlMs(-5, {})).toThrow(/cacheTtlMs/);
    expect(() => resolveCacheTtlMs(1.5, {})).toThrow(/cacheTtlMs/);
  });

  it('is what a verifier built without options uses', () => {
    const previous = process.env.API_KEY_CACHE_TTL_MS;
    process.env.API_KEY_CACHE_TTL_MS = '12345';
    try {
      expect(createApiKeyVerifier(store).cacheTtlMs).toBe(12_345);
    } finally {
      if (previous === undefined) delete process.env.API_KEY_CACHE_TTL_MS;
      else process.env.API_KEY_CACHE_TTL_MS = previous;
    }
  });
});
