import { type Env, envInt } from '../config/env';
import { hashApiKey, looksLikeApiKey } from './api-key';
import { type ApiKeyRecord, type ApiKeyStore, LAST_USED_RESOLUTION_MS } from './store';

/** Who a verified key belongs to. Everything here is public; the key and its digest are not part of it. */
export interface VerifiedApiKey {
  id: string;
  prefix: string;
  owner: string;
  name: string;
}

/**
 * Five seconds: how long a revoked key may still work on an engine instance that verified it just
 * before. The cost of a short TTL is one strongly consistent GetItem (1 read request unit) per
 * key per warm instance per TTL: 17,280 a day at 5 s against 2,880 at 30 s, about $0.002 against
 * $0.0004 a day per key and instance at on-demand prices (docs/keys.md, with the measurements).
 */
const DEFAULT_CACHE_TTL_MS = 5_000;
/** Revocation must be honoured within a minute, so no configuration may cache longer. */
const MAX_CACHE_TTL_MS = 60_000;
const DEFAULT_MAX_CACHE_ENTRIES = 10_000;
const CACHE_TTL_ENV = 'API_KEY_CACHE_TTL_MS';

export interface ApiKeyVerifierOptions {
  /**
   * How long a positive lookup is reused, in ms. Default: env `API_KEY_CACHE_TTL_MS`, else 5 000.
   * Capped at 60 000; 0 turns the cache off.
   */
  cacheTtlMs?: number;
  /** Most keys kept in the cache; the least recently used goes first. Default 10 000. */
  maxCacheEntries?: number;
  /** Clock in ms since the epoch; tests inject one instead of sleeping. */
  now?: () => number;
  /**
   * Told about a failed background `lastUsedAt` write (with the key's public id). The request that
   * triggered it has already succeeded. Default: one line on stderr.
   */
  onBackgroundError?: (error: unknown, keyId: string) => void;
}

export interface ApiKeyVerifier {
  /**
   * The key's identity if it is known and active; `undefined` for anything else (malformed, unknown,
   * revoked), so callers cannot tell those apart. Rejects only when the store itself fails.
   */
  verify(key: unknown): Promise<VerifiedApiKey | undefined>;
  /** Resolves once every background `lastUsedAt` write started so far has finished (never rejects). */
  settled(): Promise<void>;
  /** Stop listening to the store's revocations. */
  close(): void;
  readonly cacheTtlMs: number;
}

interface CacheEntry {
  identity: VerifiedApiKey;
  expiresAt: number;
  /** When lastUsedAt was last written or a write was last attempted, in ms; undefined if never. */
  lastUsedMs: number | undefined;
}

/**
 * Resolve the cache TTL from an explicit option, else env `API_KEY_CACHE_TTL_MS`, else the default.
 * Values above the maximum are capped; anything that is not a whole number >= 0 is a configuration
 * error and throws, so a typo fails at startup instead of silently caching for the default.
 * @internal tests pass an env object instead of changing process.env.
 */
export function resolveCacheTtlMs(option?: number, env: Env = process.env): number {
  if (option !== undefined) {
    if (!Number.isInteger(option) || option < 0) {
      throw new RangeError(`cacheTtlMs must be a whole number of milliseconds >= 0, got ${option}`);
    }
    return Math.min(option, MAX_CACHE_TTL_MS);
  }
  const fromEnv = envInt(env, CACHE_TTL_ENV, DEFAULT_CACHE_TTL_MS, { min: 0, max: Number.MAX_SAFE_INTEGER });
  return Math.min(fromEnv, MAX_CACHE_TTL_MS);
}

/**
 * Checks presented keys against the store with ONE GetItem per cache miss, caching positive
 * results for a short TTL. Unknown and revoked keys are never cached, so a key created a moment
 * ago works at once and an attacker's guesses never fill the cache. A revoke done in the same
 * process (any store on the same table) evicts at once; one done elsewhere (another Lambda
 * instance, the CLI) is honoured when the entry expires, i.e. within the TTL.
 */
class CachingApiKeyVerifier implements ApiKeyVerifier {
  readonly cacheTtlMs: number;
  readonly #store: ApiKeyStore;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #onBackgroundError: (error: unknown, keyId: string) => void;
  /** Map iteration order is insertion order: re-inserting on a hit makes the first entry the least recently used. */
  readonly #cache = new Map<string, CacheEntry>();
  /** Concurrent misses for the same key share one GetItem. */
  readonly #inFlight = new Map<string, Promise<CacheEntry | undefined>>();
  readonly #pendingWrites = new Set<Promise<void>>();
  readonly #unsubscribe: () => void;
  /** Bumped on every revoke; a lookup that overlapped one is not cached, since it may predate it. */
  #revocations = 0;

  constructor(store: ApiKeyStore, options: ApiKeyVerifierOptions = {}) {
    this.#store = store;
    this.cacheTtlMs = resolveCacheTtlMs(options.cacheTtlMs);
    this.#maxEntries = options.maxCacheEntries ?? DEFAULT_MAX_CACHE_ENTRIES;
    if (!Number.isInteger(this.#maxEntries) || this.#maxEntries < 1) {
      throw new RangeError(`maxCacheEntries must be a whole number >= 1, got ${this.#maxEntries}`);
    }
    this.#now = options.now ?? Date.now;
    this.#onBackgroundError = options.onBackgroundError ?? warnOnStderr;
    this.#unsubscribe = store.onRevoked((digest) => this.#forget(digest));
  }

  async verify(key: unknown): Promise<VerifiedApiKey | undefined> {
    // Garbage never reaches the database.
    if (!looksLikeApiKey(key)) return undefined;
    const digest = hashApiKey(key);
    const entry = this.#cached(digest) ?? (await this.#lookup(digest));
    if (entry === undefined) return undefined;
    this.#touchInBackground(digest, entry);
    return entry.identity;
  }

  async settled(): Promise<void> {
    while (this.#pendingWrites.size > 0) await Promise.all([...this.#pendingWrites]);
  }

  close(): void {
    this.#unsubscribe();
  }

  #cached(digest: string): CacheEntry | undefined {
    const entry = this.#cache.get(digest);
    if (entry === undefined) return undefined;
    this.#cache.delete(digest);
    if (entry.expiresAt <= this.#now()) return undefined;
    this.#cache.set(digest, entry);
    return entry;
  }

  #lookup(digest: string): Promise<CacheEntry | undefined> {
    const shared = this.#inFlight.get(digest);
    if (shared !== undefined) return shared;
    const revocationsAtStart = this.#revocations;
    const lookup = this.#store
      .getByDigest(digest)
      .then((record) => {
        if (record === undefined || record.status !== 'active') return undefined;
        const entry = this.#entryFor(record);
        if (
          // Stryker disable next-line ConditionalExpression,EqualityOperator: same answer, other memory: an entry kept with a TTL of 0 has expired already
          this.cacheTtlMs > 0 &&
          this.#revocations === revocationsAtStart
        ) {
          this.#remember(digest, entry);
        }
        return entry;
      })
      .finally(() => {
        // Stryker disable next-line ConditionalExpression: same answer, other work: dropping a newer lookup after a revoke costs one more read
        if (this.#inFlight.get(digest) === lookup) this.#inFlight.delete(digest);
      });
    this.#inFlight.set(digest, lookup);
    return lookup;
  }

  #entryFor(record: ApiKeyRecord): CacheEntry {
    // Stryker disable next-line ConditionalExpression: Date.parse(undefined) is NaN, which is read as never used below
    const lastUsedMs = record.lastUsedAt === undefined ? undefined : Date.parse(record.lastUsedAt);
    return {
      identity: { id: record.id, prefix: record.prefix, owner: record.owner, name: record.name },
      expiresAt: this.#now() + this.cacheTtlMs,
      lastUsedMs: Number.isNaN(lastUsedMs) ? undefined : lastUsedMs,
    };
  }

  #remember(digest: string, entry: CacheEntry): void {
    this.#cache.delete(digest);
    this.#cache.set(digest, entry);
    while (this.#cache.size > this.#maxEntries) {
      const oldest = this.#cache.keys().next().value;
      // Stryker disable next-line ConditionalExpression: a map above its size of at least 1 has a first key
      if (oldest === undefined) break;
      this.#cache.delete(oldest);
    }
  }

  #forget(digest: string): void {
    // Stryker disable next-line AssignmentOperator: only compared for equality, so counting down works as well
    this.#revocations += 1;
    this.#cache.delete(digest);
    this.#inFlight.delete(digest);
  }

  /**
   * Record use without holding up the request. The in-memory timestamp spares the database a
   * write (and a failed conditional check) on every request; the conditional update in the store
   * keeps it to one write a minute across all instances.
   */
  #touchInBackground(digest: string, entry: CacheEntry): void {
    const now = this.#now();
    // Stryker disable next-line ConditionalExpression: now - undefined is NaN, which is never <= the resolution
    if (entry.lastUsedMs !== undefined && now - entry.lastUsedMs <= LAST_USED_RESOLUTION_MS) return;
    entry.lastUsedMs = now;
    const write = this.#store.touchLastUsed(digest, new Date(now)).then(
      () => undefined,
      (error: unknown) => this.#reportBackgroundError(error, entry.identity.id),
    );
    this.#pendingWrites.add(write);
    void write.then(() => this.#pendingWrites.delete(write));
  }

  #reportBackgroundError(error: unknown, keyId: string): void {
    try {
      this.#onBackgroundError(error, keyId);
    } catch {
      // A failing error reporter must not turn into an unhandled rejection.
    }
  }
}

export function createApiKeyVerifier(
  store: ApiKeyStore,
  options: ApiKeyVerifierOptions = {},
): ApiKeyVerifier {
  return new CachingApiKeyVerifier(store, options);
}

function warnOnStderr(error: unknown, keyId: string): void {
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  console.warn(`api key ${keyId}: lastUsedAt update failed: ${reason}`);
}
