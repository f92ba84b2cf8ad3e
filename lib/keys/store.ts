import { isDisplayName, NAME_MAX_LENGTH, OWNER_RULE, OWNER_SHAPE } from '../text';
import {
  ACCEPTED_KEY_RULE,
  apiKeyDisplayPrefix,
  apiKeyIdFromDigest,
  generateApiKey,
  hashApiKey,
  looksLikeApiKey,
} from './api-key';

export type ApiKeyStatus = 'active' | 'revoked';

/** What is stored about a key. The key itself never is; `digest` is its SHA-256 hex. */
export interface ApiKeyRecord {
  digest: string;
  /** Public short id (first 12 hex characters of the digest). */
  id: string;
  /** Public display prefix, e.g. `sbe_AbCdEfGh`. */
  prefix: string;
  owner: string;
  name: string;
  status: ApiKeyStatus;
  /** ISO 8601 timestamps. */
  createdAt: string;
  lastUsedAt?: string;
  revokedAt?: string;
}

/** A record as it may be shown to a person or printed by the CLI: no key, no digest. */
export type PublicApiKeyRecord = Omit<ApiKeyRecord, 'digest'>;

/** `lastUsedAt` is written at most once per this interval per key (a new write needs strictly more). */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Persistence of API key records, addressed by digest. Implementations never see a key.
 * The DynamoDB adapter is `DynamoApiKeyStore`; anything else (another database) implements this.
 */
export interface ApiKeyStore {
  /** Save a new record. Throws `ApiKeyConflictError` if a record with this digest exists. */
  put(record: ApiKeyRecord): Promise<void>;
  /** One read by digest; `undefined` if there is no such key. Revoked records are returned as they are. */
  getByDigest(digest: string): Promise<ApiKeyRecord | undefined>;
  /** Every record (optionally of one owner), oldest first. For administration, not for the request path. */
  list(filter?: { owner?: string }): Promise<ApiKeyRecord[]>;
  /** One owner's records, oldest first, without scanning: what a user sees of their own keys. */
  listByOwner(owner: string): Promise<ApiKeyRecord[]>;
  /**
   * The owner's key with this public id, in reads that do not grow with the owner's keys;
   * `undefined` when the owner has no such key (another owner's key included).
   */
  getByOwnerAndId(owner: string, id: string): Promise<ApiKeyRecord | undefined>;
  /** Mark a key revoked (idempotent). Returns the updated record, or `undefined` if there is no such key. */
  revoke(digest: string, now?: Date): Promise<ApiKeyRecord | undefined>;
  /**
   * Set `lastUsedAt = now` only if it is unset or more than `LAST_USED_RESOLUTION_MS` before `now`.
   * Returns whether it wrote. Never creates a record for an unknown digest.
   */
  touchLastUsed(digest: string, now: Date): Promise<boolean>;
  /**
   * Be told when a store of this process revokes a key on the same table, so caches in the
   * process drop it at once. Returns a function that unsubscribes.
   */
  onRevoked(listener: (digest: string) => void): () => void;
}

export class ApiKeyConflictError extends Error {
  override readonly name = 'ApiKeyConflictError';
}

/** Owner or name rejected; `field` names which. The message never contains a key. */
export class ApiKeyInputError extends Error {
  override readonly name = 'ApiKeyInputError';
  readonly field: 'owner' | 'name' | 'key';

  constructor(field: 'owner' | 'name' | 'key', message: string) {
    super(message);
    this.field = field;
  }
}

export interface NewApiKeyInput {
  /**
   * Who the key acts for: the user id whose registered systems the key may run (the Cognito `sub`
   * when deployed). 1-128 characters from `A-Z a-z 0-9 . _ @ : + -`.
   */
  owner: string;
  /** A label for people, e.g. "CI pipeline". 1-100 characters, no control characters; trimmed. */
  name: string;
}

export interface IssuedApiKey {
  /** The secret. Show it once to whoever asked for it; it cannot be recovered later. */
  key: string;
  record: ApiKeyRecord;
}

/** Generate a new key, save its record, and return both. The only place a new key exists in clear. */
export async function issueApiKey(
  store: Pick<ApiKeyStore, 'put'>,
  input: NewApiKeyInput,
  now: Date = new Date(),
): Promise<IssuedApiKey> {
  const key = generateApiKey();
  const record = newApiKeyRecord(key, input, now);
  await store.put(record);
  return { key, record };
}

/**
 * Register a key that already exists outside the store, e.g. `DEV_API_KEY` for the local server or a
 * fixed key in a test. Idempotent: if the key is already registered, its record is returned untouched
 * (including a revoked status: importing does not resurrect a revoked key).
 */
export async function importApiKey(
  store: ApiKeyStore,
  key: string,
  input: NewApiKeyInput,
  now: Date = new Date(),
): Promise<ApiKeyRecord> {
  if (!looksLikeApiKey(key)) {
    throw new ApiKeyInputError('key', `key must be ${ACCEPTED_KEY_RULE}`);
  }
  const record = newApiKeyRecord(key, input, now);
  try {
    await store.put(record);
    return record;
  } catch (error) {
    if (!(error instanceof ApiKeyConflictError)) throw error;
    const existing = await store.getByDigest(record.digest);
    if (existing === undefined) throw error;
    return existing;
  }
}

function newApiKeyRecord(key: string, input: NewApiKeyInput, now: Date): ApiKeyRecord {
  const owner = checkOwner(input.owner);
  const name = checkName(input.name);
  const digest = hashApiKey(key);
  return {
    digest,
    id: apiKeyIdFromDigest(digest),
    prefix: apiKeyDisplayPrefix(key),
    owner,
    name,
    status: 'active',
    createdAt: now.toISOString(),
  };
}

function checkOwner(owner: unknown): string {
  if (typeof owner !== 'string' || !OWNER_SHAPE.test(owner)) {
    throw new ApiKeyInputError('owner', `owner must be ${OWNER_RULE}`);
  }
  return owner;
}

function checkName(name: unknown): string {
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (!isDisplayName(trimmed)) {
    throw new ApiKeyInputError(
      'name',
      `name must be 1-${NAME_MAX_LENGTH} characters without control characters`,
    );
  }
  return trimmed;
}

/**
 * The form a record may be printed or returned in. Fields are picked one by one rather than the
 * digest dropped, so a field added to the record later is not published by accident.
 */
export function toPublicApiKeyRecord(record: ApiKeyRecord): PublicApiKeyRecord {
  return {
    id: record.id,
    prefix: record.prefix,
    owner: record.owner,
    name: record.name,
    status: record.status,
    createdAt: record.createdAt,
    ...(record.lastUsedAt === undefined ? {} : { lastUsedAt: record.lastUsedAt }),
    ...(record.revokedAt === undefined ? {} : { revokedAt: record.revokedAt }),
  };
}
