/**
 * The store-independent rules of API keys: what an issued or imported record holds, what is
 * refused before anything is written, and what may be shown of a record. The DynamoDB store
 * itself is in dynamo-store.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  type ApiKeyRecord,
  type ApiKeyStore,
  hashApiKey,
  importApiKey,
  issueApiKey,
  toPublicApiKeyRecord,
} from '../../lib/keys';
import { ApiKeyConflictError } from '../../lib/keys/store';

const T0 = new Date('2025-03-01T12:00:00.000Z');
const KEY = 'sbe_contractcheck0123456789abcdefghijklmnopqrstuv';

/** Records what it is given; `put` and `getByDigest` can be made to fail as a racing store would. */
function recordingStore(behaviour: { put?: () => Promise<void>; existing?: ApiKeyRecord } = {}) {
  const puts: ApiKeyRecord[] = [];
  const store = {
    put: async (record: ApiKeyRecord) => {
      puts.push(record);
      await behaviour.put?.();
    },
    getByDigest: async () => behaviour.existing,
  } as unknown as ApiKeyStore;
  return { store, puts };
}

describe('issueApiKey', () => {
  // The record holds the digest, the public id and prefix, never the key.
  it('stores an active record of a new key', async () => {
    const { store, puts } = recordingStore();
    const { key, record } = await issueApiKey(store, { owner: 'alice', name: '  CI  ' }, T0);
    const digest = hashApiKey(key);
    expect(record).toStrictEqual({
      digest,
      id: digest.slice(0, 12),
      prefix: key.slice(0, 12),
      owner: 'alice',
      name: 'CI',
      status: 'active',
      createdAt: '2025-03-01T12:00:00.000Z',
    });
    expect(puts).toEqual([record]);
  });

  // A bad owner or name is refused, naming the field and its rule, before anything is written.
  it.each<[Record<string, unknown>, string, string]>([
    [
      { owner: 'has space', name: 'CI' },
      'owner',
      'owner must be 1-128 characters from A-Z a-z 0-9 . _ @ : + -',
    ],
    [{ owner: 42, name: 'CI' }, 'owner', 'owner must be 1-128 characters from A-Z a-z 0-9 . _ @ : + -'],
    [{ owner: 'alice', name: '   ' }, 'name', 'name must be 1-100 characters without control characters'],
    [{ owner: 'alice', name: 7 }, 'name', 'name must be 1-100 characters without control characters'],
  ])('refuses %j', async (input, field, message) => {
    const { store, puts } = recordingStore();
    await expect(issueApiKey(store, input as never, T0)).rejects.toMatchObject({ field, message });
    expect(puts).toHaveLength(0);
  });
});

describe('importApiKey', () => {
  // The rule is named in words, as DEV_API_KEY's documentation gives it.
  it('names the rule a key must follow', async () => {
    const { store } = recordingStore();
    await expect(importApiKey(store, 'short', { owner: 'dev', name: 'local' })).rejects.toMatchObject({
      field: 'key',
      message: 'key must be 32 to 512 visible ASCII characters (no spaces)',
    });
  });

  // A store failure that is not a conflict is passed on, not mistaken for "already there".
  it('passes on a failure other than a conflict', async () => {
    const failure = new Error('the table is throttled');
    const { store } = recordingStore({
      put: async () => {
        throw failure;
      },
      existing: { digest: hashApiKey(KEY) } as ApiKeyRecord,
    });
    await expect(importApiKey(store, KEY, { owner: 'dev', name: 'local' }, T0)).rejects.toBe(failure);
  });

  // A conflict whose record is gone by the time it is read (revoked and deleted meanwhile):
  // the conflict itself is the answer, not an undefined record.
  it('passes on a conflict whose record has gone', async () => {
    const conflict = new ApiKeyConflictError('an API key with this id already exists');
    const { store } = recordingStore({
      put: async () => {
        throw conflict;
      },
    });
    await expect(importApiKey(store, KEY, { owner: 'dev', name: 'local' }, T0)).rejects.toBe(conflict);
    expect(conflict.name).toBe('ApiKeyConflictError');
  });
});

describe('toPublicApiKeyRecord', () => {
  const record: ApiKeyRecord = {
    digest: 'd'.repeat(64),
    id: 'dddddddddddd',
    prefix: 'sbe_AbCdEfGh',
    owner: 'alice',
    name: 'CI',
    status: 'revoked',
    createdAt: '2025-03-01T12:00:00.000Z',
    lastUsedAt: '2025-03-02T12:00:00.000Z',
    revokedAt: '2025-03-03T12:00:00.000Z',
  };

  // Everything but the digest, which would let anyone holding it look the key up.
  it('shows every field but the digest', () => {
    expect(toPublicApiKeyRecord({ ...record, addedLater: 'x' } as ApiKeyRecord)).toStrictEqual({
      id: 'dddddddddddd',
      prefix: 'sbe_AbCdEfGh',
      owner: 'alice',
      name: 'CI',
      status: 'revoked',
      createdAt: '2025-03-01T12:00:00.000Z',
      lastUsedAt: '2025-03-02T12:00:00.000Z',
      revokedAt: '2025-03-03T12:00:00.000Z',
    });
  });

  // A key never used and not revoked has neither field, rather than fields set to undefined.
  it('leaves out the times that are not set', () => {
    const { lastUsedAt: _l, revokedAt: _r, ...fresh } = record;
    expect(Object.keys(toPublicApiKeyRecord({ ...fresh, status: 'active' }))).toEqual([
      'id',
      'prefix',
      'owner',
      'name',
      'status',
      'createdAt',
    ]);
  });
});
