import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
  paginateScan,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { failedOnRetry, holdsWrite } from '../storage/faults';
import type { OwnerQuotas, QuotaHold } from '../storage/quotas';
import { PARTITION_PREFIXES } from '../storage/table';
import { untilProcessed } from '../storage/unprocessed';
import { isApiKeyId } from './api-key';
import {
  ApiKeyConflictError,
  type ApiKeyRecord,
  type ApiKeyStatus,
  type ApiKeyStore,
  LAST_USED_RESOLUTION_MS,
} from './store';

/** Partition key prefix of API key items: `pk = "APIKEY#<sha256hex>"`. */
const API_KEY_PK_PREFIX = PARTITION_PREFIXES.apiKey;
/** Sort key of API key items. */
const API_KEY_SK = 'APIKEY';

export interface DynamoApiKeyStoreOptions {
  /** Built once per process (see `createDynamoClients`) and shared. */
  doc: DynamoDBDocumentClient;
  tableName: string;
  /** Items per Scan page in `list` (DynamoDB's Limit). Default: DynamoDB's own 1 MB pages. */
  scanPageSize?: number;
  /** Counts each owner's active keys against their quota; none when absent (operators' tools). */
  quotas?: OwnerQuotas | undefined;
  /**
   * Longest a `lastUsedAt` write may take, its retries included; default 500 ms. The write is
   * best effort, but the engine function waits for it before answering (Lambda may freeze the
   * instance once the handler returns), so under throttling it gives up instead of holding a
   * finished answer back for the SDK's whole retry budget (about 6 s).
   */
  touchDeadlineMs?: number;
}

const DIGEST_SHAPE = /^[0-9a-f]{64}$/;
const DEFAULT_TOUCH_DEADLINE_MS = 500;
const STATUSES: ReadonlySet<string> = new Set<ApiKeyStatus>(['active', 'revoked']);

/**
 * `ApiKeyStore` on the service's single DynamoDB table. Item per key:
 * `{ pk: "APIKEY#<digest>", sk: "APIKEY", id, prefix, owner, name, status, createdAt, lastUsedAt?, revokedAt? }`.
 * owner, name and status are DynamoDB reserved words, hence the `#` placeholders in every expression.
 */
export class DynamoApiKeyStore implements ApiKeyStore {
  readonly #doc: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #scanPageSize: number | undefined;
  readonly #revokedListeners: Set<(digest: string) => void>;
  readonly #quotas: OwnerQuotas | undefined;
  readonly #touchDeadlineMs: number;

  constructor(options: DynamoApiKeyStoreOptions) {
    this.#doc = options.doc;
    this.#tableName = options.tableName;
    this.#revokedListeners = revocationListenersOf(options.tableName);
    this.#scanPageSize = options.scanPageSize;
    this.#quotas = options.quotas;
    this.#touchDeadlineMs = options.touchDeadlineMs ?? DEFAULT_TOUCH_DEADLINE_MS;
  }

  /** How many active keys the owner has, from the keys themselves. */
  async activeCount(owner: string): Promise<number> {
    return (await this.listByOwner(owner)).filter((record) => record.status === 'active').length;
  }

  /**
   * Two single-item writes, no transaction (dynalite has none): the owner's index entry first,
   * then the key. A key therefore never exists without its index entry; an index entry whose
   * key write failed is removed again, and `listByOwner` skips any that is left dangling.
   */
  async put(record: ApiKeyRecord): Promise<void> {
    const { digest, ...attributes } = record;
    const index = ownerIndexKeyOf(record.owner, record.id);
    const indexItem = { ...index, digest };
    // An active key is counted first: past the quota nothing is written.
    const hold = await this.#quotas?.begin(record.owner, { keys: record.status === 'active' ? 1 : 0 });
    try {
      await this.#putNew(indexItem);
    } catch (error) {
      await hold?.abort();
      if (error instanceof ConditionalCheckFailedException) {
        throw new ApiKeyConflictError(`an API key with id ${record.id} already exists`);
      }
      throw error;
    }
    try {
      await this.#putNew({ ...keyOf(digest), ...attributes });
    } catch (error) {
      const conflict = error instanceof ConditionalCheckFailedException;
      // The index entry goes again, unless this owner holds the key already: the entry is then
      // that key's own, which an index write retried after a throttle meets and takes for its own
      // write (a repeated import of the same key); removing it would hide the key from its owner.
      if (!conflict || !(await this.#isOwnedBy(digest, record.owner))) {
        await this.#doc
          .send(new DeleteCommand({ TableName: this.#tableName, Key: index }))
          .catch(() => undefined);
      }
      await hold?.abort();
      if (conflict) throw new ApiKeyConflictError(`an API key with id ${record.id} already exists`);
      throw error;
    }
    await hold?.commit();
  }

  /**
   * A put that never replaces an item. When its condition fails on a retry, an earlier attempt
   * may have written it with the answer lost: if the item is exactly this one, the put succeeded.
   */
  async #putNew(item: Record<string, unknown>): Promise<void> {
    try {
      await this.#doc.send(
        new PutCommand({
          TableName: this.#tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException) || !failedOnRetry(error)) throw error;
      if (!holdsWrite(await this.#read({ pk: item.pk, sk: item.sk }), item)) throw error;
    }
  }

  /** Whether the key with this digest exists and is `owner`'s; a failed read counts as no. */
  async #isOwnedBy(digest: string, owner: string): Promise<boolean> {
    const item = await this.#read(keyOf(digest)).catch(() => undefined);
    return item?.owner === owner;
  }

  /**
   * One item, read strongly consistent: every read here must see a write of a moment ago (a key
   * used right after it was created, a write whose answer was lost, a key revoked meanwhile).
   */
  async #read(key: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.#doc.send(
      new GetCommand({ TableName: this.#tableName, Key: key, ConsistentRead: true }),
    );
    return Item;
  }

  /**
   * One owner's keys, oldest first: a Query on the owner's index entries, then the key items
   * themselves (the only copy of status and dates) in batches of 100. Never a Scan.
   */
  async listByOwner(owner: string): Promise<ApiKeyRecord[]> {
    const digests: string[] = [];
    const pages = paginateQuery(
      { client: this.#doc },
      {
        TableName: this.#tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': OWNER_PK_PREFIX + owner, ':prefix': OWNER_INDEX_SK_PREFIX },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) {
      // Stryker disable next-line ArrayDeclaration: DynamoDB's Query answer always carries Items ([] when none match)
      for (const item of page.Items ?? []) if (typeof item.digest === 'string') digests.push(item.digest);
    }
    const records: ApiKeyRecord[] = [];
    // At most 100 keys a request: DynamoDB refuses a larger batch.
    while (digests.length > 0) {
      // Unprocessed keys mean throttling: asked for again as untilProcessed does.
      await untilProcessed(
        digests.splice(0, 100).map(keyOf),
        async (keys) => {
          const { Responses, UnprocessedKeys } = await this.#doc.send(
            new BatchGetCommand({
              RequestItems: { [this.#tableName]: { Keys: keys, ConsistentRead: true } },
            }),
          );
          for (const item of Responses?.[this.#tableName] ?? []) {
            const record = recordFromItem(item);
            // An index entry left dangling may name another owner's key (a refused import whose
            // clean-up failed): that key is not this owner's.
            if (record.owner === owner) records.push(record);
          }
          return (UnprocessedKeys?.[this.#tableName]?.Keys ?? []) as typeof keys;
        },
        (left, attempts) => `${left} API keys still unread after ${attempts} attempts`,
      );
    }
    return records.sort(byCreation);
  }

  /**
   * Two strongly consistent reads: the owner's index entry for `id`, then the key it names. An
   * entry left dangling (a key write that failed, or another owner's key) answers `undefined`,
   * as `listByOwner` skips it.
   */
  async getByOwnerAndId(owner: string, id: string): Promise<ApiKeyRecord | undefined> {
    // Any other text is no key's id, and one past DynamoDB's key size would be refused as invalid.
    if (!isApiKeyId(id)) return undefined;
    const entry = await this.#read(ownerIndexKeyOf(owner, id));
    // An entry edited to hold no digest reads no key: getByDigest takes only a digest's shape.
    const record = entry === undefined ? undefined : await this.getByDigest(String(entry.digest));
    return record?.owner === owner && record.id === id ? record : undefined;
  }

  async getByDigest(digest: string): Promise<ApiKeyRecord | undefined> {
    if (!DIGEST_SHAPE.test(digest)) return undefined;
    // A strongly consistent read: a key created a moment ago works at once, and a revoke is seen
    // by the first lookup after a cache entry expires. Only positive results are cached, so this
    // costs little.
    const item = await this.#read(keyOf(digest));
    return item === undefined ? undefined : recordFromItem(item);
  }

  async list(filter: { owner?: string } = {}): Promise<ApiKeyRecord[]> {
    const byOwner = filter.owner !== undefined;
    const pages = paginateScan(
      { client: this.#doc, pageSize: this.#scanPageSize },
      {
        TableName: this.#tableName,
        FilterExpression: byOwner
          ? 'begins_with(pk, :pkPrefix) AND sk = :sk AND #owner = :owner'
          : 'begins_with(pk, :pkPrefix) AND sk = :sk',
        ExpressionAttributeValues: {
          ':pkPrefix': API_KEY_PK_PREFIX,
          ':sk': API_KEY_SK,
          ...(byOwner ? { ':owner': filter.owner } : {}),
        },
        ...(byOwner ? { ExpressionAttributeNames: { '#owner': 'owner' } } : {}),
      },
    );
    const records: ApiKeyRecord[] = [];
    for await (const page of pages) {
      // Stryker disable next-line ArrayDeclaration: DynamoDB's Scan answer always carries Items ([] when none match)
      for (const item of page.Items ?? []) records.push(recordFromItem(item));
    }
    // Scan order is hash order; people and tests want a stable, meaningful one.
    return records.sort(byCreation);
  }

  async revoke(digest: string, now: Date = new Date()): Promise<ApiKeyRecord | undefined> {
    if (!DIGEST_SHAPE.test(digest)) return undefined;
    let hold: QuotaHold | undefined;
    if (this.#quotas !== undefined) {
      // An active key's owner is needed first: its hold keeps a recount from running while the
      // key goes from active to revoked.
      const current = await this.getByDigest(digest);
      if (current === undefined) return undefined;
      if (current.status === 'active') hold = await this.#quotas.begin(current.owner);
    }
    let before: ApiKeyRecord;
    try {
      const { Attributes } = await this.#doc.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: keyOf(digest),
          UpdateExpression: 'SET #status = :revoked, revokedAt = if_not_exists(revokedAt, :now)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':revoked': 'revoked', ':now': now.toISOString() },
          ReturnValues: 'ALL_OLD',
        }),
      );
      before = recordFromItem(Attributes ?? {});
    } catch (error) {
      // Ending the hold without a decrease is always safe: at worst an overcount.
      await hold?.abort();
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
    // Only the call that found the key active frees its place. A retry after a lost answer finds
    // it revoked already and frees nothing: an overcount, which a recount corrects.
    await hold?.commit({ keys: before.status === 'active' ? -1 : 0 });
    for (const listener of this.#revokedListeners) listener(digest);
    return { ...before, status: 'revoked', revokedAt: before.revokedAt ?? now.toISOString() };
  }

  async touchLastUsed(digest: string, now: Date): Promise<boolean> {
    if (!DIGEST_SHAPE.test(digest)) return false;
    const cutoff = new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString();
    try {
      await this.#doc.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: keyOf(digest),
          UpdateExpression: 'SET lastUsedAt = :now',
          // attribute_exists(pk): UpdateItem would otherwise create an item for a deleted key.
          // ISO 8601 UTC strings of equal length compare in time order, so `<` on strings is `<` in time.
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt < :cutoff)',
          ExpressionAttributeValues: { ':now': now.toISOString(), ':cutoff': cutoff },
        }),
        { abortSignal: AbortSignal.timeout(this.#touchDeadlineMs) },
      );
      return true;
    } catch (error) {
      // Someone (this or another instance) wrote it within the last minute: nothing to do.
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  onRevoked(listener: (digest: string) => void): () => void {
    this.#revokedListeners.add(listener);
    return () => {
      this.#revokedListeners.delete(listener);
    };
  }
}

/**
 * Who hears of a revoke, per table and shared by every store of the process on that table: the
 * local server runs the connect function (which revokes) and the engine function (which caches
 * keys) in one process, each with its own store, and a revoke must evict the engine's cache at
 * once (in its worker threads too: `announceRevocation`). Deployed, the two are separate
 * functions, and the cache TTL bounds the delay.
 */
const revocationListeners = new Map<string, Set<(digest: string) => void>>();

/**
 * Tells every store of this process on `tableName`, and so every key cache listening to one,
 * that a key was revoked somewhere else: the local server runs the engine in worker threads
 * (`local/handler-pool.ts`), and each passes on the revokes of the main thread this way.
 */
export function announceRevocation(tableName: string, digest: string): void {
  for (const listener of revocationListenersOf(tableName)) listener(digest);
}

function revocationListenersOf(tableName: string): Set<(digest: string) => void> {
  let listeners = revocationListeners.get(tableName);
  if (listeners === undefined) {
    listeners = new Set();
    revocationListeners.set(tableName, listeners);
  }
  return listeners;
}

/** An owner's index entry for a key: `pk = "OWNER#<owner>", sk = "APIKEY#<id>"`, holding the digest. */
const OWNER_PK_PREFIX = PARTITION_PREFIXES.owner;
const OWNER_INDEX_SK_PREFIX = 'APIKEY#';

function ownerIndexKeyOf(owner: string, id: string): { pk: string; sk: string } {
  return { pk: OWNER_PK_PREFIX + owner, sk: OWNER_INDEX_SK_PREFIX + id };
}

function keyOf(digest: string): { pk: string; sk: string } {
  return { pk: API_KEY_PK_PREFIX + digest, sk: API_KEY_SK };
}

/**
 * Read an item back into a record, refusing anything that is not a well-formed API key item.
 * Every read asks for pk `APIKEY#…` and sk `APIKEY` (a GetItem or BatchGet by that key, a Scan
 * filtered on both), so of the keys only the digest after the prefix is left to check.
 */
function recordFromItem(item: Record<string, unknown>): ApiKeyRecord {
  const digest = String(item.pk).slice(API_KEY_PK_PREFIX.length);
  const where = `API key item ${typeof item.id === 'string' ? item.id : '(no id)'}`;
  if (!DIGEST_SHAPE.test(digest)) throw new Error(`${where} has malformed keys`);
  const text = (field: string): string => {
    const value = item[field];
    if (typeof value !== 'string') throw new Error(`${where} is missing the string attribute "${field}"`);
    return value;
  };
  const optionalText = (field: string): string | undefined =>
    item[field] === undefined ? undefined : text(field);
  const status = text('status');
  if (!STATUSES.has(status)) throw new Error(`${where} has unknown status "${status}"`);
  const lastUsedAt = optionalText('lastUsedAt');
  const revokedAt = optionalText('revokedAt');
  return {
    digest,
    id: text('id'),
    prefix: text('prefix'),
    owner: text('owner'),
    name: text('name'),
    status: status as ApiKeyStatus,
    createdAt: text('createdAt'),
    ...(lastUsedAt === undefined ? {} : { lastUsedAt }),
    ...(revokedAt === undefined ? {} : { revokedAt }),
  };
}

/** Oldest first; keys created in the same millisecond by id. */
function byCreation(a: ApiKeyRecord, b: ApiKeyRecord): number {
  return compareStrings(a.createdAt, b.createdAt) || compareStrings(a.id, b.id);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
