/**
 * `SystemStore` on the service's single table (`lib/storage/table.ts`).
 *
 * Item layout
 *
 *   head   pk = "OWNER#<owner>"   sk = "SYSTEM#<id>"
 *          id, owner, name, url, nodes, dependencies, createdAt, sha256    the record
 *          encoding ("br"), byteLength (compressed bytes), chunkCount (0 when inline)
 *          structure (binary)                                               only when inline
 *          version (absent = 1), refreshedAt                               after a refresh
 *          chunkVersion (absent = version)          the version whose chunks it reads, see below
 *   chunk  pk = "SYSTEM#<id>"     sk = "CHUNK#<index, 5 digits>"  (CHUNK#00000, CHUNK#00001, …)
 *                                 or "CHUNK#v<version>#<index>" for versions after the first
 *          data (binary, at most 300,000 bytes), owner
 *
 * A refresh (`replace`) writes the new version's chunks beside the old ones and the head last,
 * on the condition that the head is still the version it read, so readers (who follow the
 * head's version) see one whole structure or the other; then it deletes the old chunks. A
 * refresh that failed may have left chunks under the version a retry means to write, and a rival
 * refresh may be writing them at that moment: when a chunk key is taken, the refresh removes
 * what it wrote and writes under the next version, and the head records it as `chunkVersion`.
 *
 * Heads live in their owner's partition: listing is one Query on it (ids are ULIDs, so sort
 * key order is creation order), and a head is only ever addressed together with its owner, so
 * another owner's system is simply not found. The partition also holds the owner's API key
 * index entries (`APIKEY#…`), hence `begins_with(sk, "SYSTEM#")` in every Query. Never a Scan.
 *
 * Size: a structure at the engine's limits is 20-40 MB of JSON and an item at most 400 KB.
 * Compressed, it is stored inline when it fits in 300,000 bytes (the rest of a head is a few KB
 * at most: a 2,048-character URL, a 100-character name), otherwise in chunks in a partition of
 * their own, which a Query returns in index order.
 *
 * Writing without transactions (dynalite has none, and DynamoDB's hold at most 4 MB, less than
 * a large structure): the chunks first, each a conditional put, then the head last, also
 * conditional. Every read starts from the head, so nothing of a system is visible until its
 * last write, and a create that fails at any point leaves no head. A head write that fails
 * ambiguously (a timeout after DynamoDB applied it) leaves a complete system, since all its
 * chunks were written before: never a half one. That is also why a failed create does not
 * delete its chunks: it cannot tell an orphan from the chunks of a head that did land.
 *
 * Orphan chunks (a create that failed after writing chunks, a delete that failed after removing
 * the head) stay where they are: no read reaches a chunk partition without its head, so they
 * cost storage only. Each chunk names its owner so that a maintenance sweep (offline, where a
 * Scan is acceptable) can find them: chunk items (`sk` beginning `CHUNK#`) whose head
 * `OWNER#<owner>` / `SYSTEM#<id>` does not exist and whose id's ULID time (`decodeTime`) is
 * older than any create still in progress, say an hour.
 *
 * Reading back checks everything that could have gone wrong since: the head's shape, the chunk
 * count and order, the byte length, and the SHA-256 of the decompressed JSON. Any mismatch is a
 * `SystemStorageError`, never a structure that is not the one registered.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { monotonicFactory } from 'ulid';
import { failedOnRetry, holdsWrite, StoreBusyError } from '../storage/faults';
import type { OwnerQuotas } from '../storage/quotas';
import { deleteBatch, inBatches } from './batch-delete';
import { decodeCursor, encodeCursor } from './cursor';
import { SettingsChangedError, SystemChangedError, SystemInputError, SystemStorageError } from './errors';
import { checkLimit, checkName, checkOwner, checkStructure, checkUrl, isSystemId } from './input';
import {
  chunkKey,
  chunkRange,
  chunkVersionOfHead,
  HEAD_SK_PREFIX,
  headKey,
  type ItemKey,
  ownerPartition,
  payloadFromHeadItem,
  RECORD_ATTRIBUTES,
  readOptionsAttribute,
  recordFromHeadItem,
  settingsAttribute,
} from './items';
import { decodeStructure, encodeStructure, PAYLOAD_ENCODING, splitBytes } from './payload';
import type { SystemRecord } from './record';
import type { SystemSettings } from './settings';
import type {
  NewSystem,
  StoredSystem,
  SystemListOptions,
  SystemPage,
  SystemReplacement,
  SystemStore,
} from './store';

/** 300,000 bytes of payload keep a head or chunk item ~100 KB under DynamoDB's 400 KB. */
const MAX_CHUNK_BYTES = 300_000;
/**
 * Compressed bytes beyond which a structure is refused before anything is written. A structure
 * at the engine's limits compresses to a few MB; this only bounds what one create can cost.
 */
const DEFAULT_MAX_STORED_BYTES = 64 * 1024 * 1024;
/** Chunk puts in flight at once: 8 × 300 KB keeps a create fast without a burst of megabytes. */
const CHUNK_WRITE_CONCURRENCY = 8;
/**
 * Chunk versions a refresh tries before it gives up: each taken one is a failed refresh's
 * leftovers (until the sweep) or a rival refresh in flight, and a handful is already unusual.
 */
const REFRESH_CHUNK_VERSIONS = 16;

export interface DynamoSystemStoreOptions {
  /** Built once per process (see `createDynamoClients`) and shared. */
  doc: DynamoDBDocumentClient;
  tableName: string;
  /**
   * Largest inline structure and largest chunk, in compressed bytes: 1..300,000, default 300,000.
   * Tests lower it to make small structures go through chunks.
   */
  chunkBytes?: number;
  /** Compressed size above which `create` refuses a structure (`SystemInputError` on `structure`). */
  maxStoredBytes?: number;
  /**
   * The id of a system created at `timeMs`. Default: a monotonic ULID factory, so ids of one
   * process increase even within a millisecond and list in creation order. Tests pass
   * `monotonicFactory(fixedPrng)` for ids that are the same on every run.
   */
  newId?: (timeMs: number) => string;
  /** Counts each owner's systems and stored bytes against their quotas; none when absent. */
  quotas?: OwnerQuotas | undefined;
}

/**
 * How many heads a read follows when each one's chunks are gone by the time it reads them (a
 * refresh or delete landing in between): more would mean refreshes landing every few milliseconds.
 */
const SWITCHED_HEAD_ATTEMPTS = 3;

export class DynamoSystemStore implements SystemStore {
  readonly #doc: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #chunkBytes: number;
  readonly #maxStoredBytes: number;
  readonly #newId: (timeMs: number) => string;
  readonly #quotas: OwnerQuotas | undefined;

  constructor(options: DynamoSystemStoreOptions) {
    const chunkBytes = options.chunkBytes ?? MAX_CHUNK_BYTES;
    if (!Number.isSafeInteger(chunkBytes) || chunkBytes < 1 || chunkBytes > MAX_CHUNK_BYTES) {
      throw new RangeError(`chunkBytes must be an integer from 1 to ${MAX_CHUNK_BYTES}`);
    }
    this.#doc = options.doc;
    this.#tableName = options.tableName;
    this.#chunkBytes = chunkBytes;
    this.#maxStoredBytes = options.maxStoredBytes ?? DEFAULT_MAX_STORED_BYTES;
    this.#newId = options.newId ?? monotonicFactory();
    this.#quotas = options.quotas;
  }

  /** How many systems the owner has and their stored bytes, from the heads themselves. */
  async usage(owner: string): Promise<{ systems: number; bytes: number }> {
    checkOwner(owner);
    let systems = 0;
    let bytes = 0;
    const pages = paginateQuery(
      { client: this.#doc },
      {
        TableName: this.#tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': ownerPartition(owner), ':prefix': HEAD_SK_PREFIX },
        ProjectionExpression: 'byteLength',
        ConsistentRead: true,
      },
    );
    for await (const page of pages) {
      // Stryker disable next-line ArrayDeclaration: a Query's answer always has Items, empty when nothing matched
      for (const item of page.Items ?? []) {
        systems += 1;
        // Stryker disable next-line ConditionalExpression: every head has a numeric byteLength (create and replace write one)
        bytes += typeof item.byteLength === 'number' ? item.byteLength : 0;
      }
    }
    return { systems, bytes };
  }

  async create(system: NewSystem, now: Date = new Date()): Promise<SystemRecord> {
    const owner = checkOwner(system.owner);
    const name = checkName(system.name);
    const url = system.url === undefined ? undefined : checkUrl(system.url);
    const structure = checkStructure(system.structure);
    // Counted before the first await, together with the JSON text, so both describe one state.
    const nodes = structure.nodes.length;
    const dependencies = structure.dependencies.length;
    const { bytes, sha256 } = await encodeStructure(structure);
    if (bytes.length > this.#maxStoredBytes) {
      throw new SystemInputError(
        'structure',
        `structure is too large to store: over ${this.#maxStoredBytes} bytes even compressed`,
      );
    }
    const id = this.#newId(now.getTime());
    if (!isSystemId(id)) throw new Error('the id source returned something that is not a ULID');
    const record: SystemRecord = {
      id,
      owner,
      name,
      ...(url === undefined ? {} : { url }),
      nodes,
      dependencies,
      createdAt: now.toISOString(),
      sha256,
      ...(system.format === undefined ? {} : { format: system.format }),
      ...(system.unit === undefined ? {} : { unit: system.unit }),
      ...(system.readOptions === undefined ? {} : { readOptions: system.readOptions }),
      ...(system.settings === undefined ? {} : { settings: system.settings }),
    };
    const { chunks, payload } = layoutPayload(bytes, this.#chunkBytes);
    // Counted first: past a quota nothing is written (see lib/storage/quotas.ts).
    const hold = await this.#quotas?.begin(owner, { systems: 1, bytes: bytes.length });
    try {
      await this.#putChunks(id, owner, chunks, 1, now);
    } catch (error) {
      // No head was written: the system certainly does not exist. The id is new, so every chunk
      // key of it is this create's (a taken one was a collision, whose own chunks are already gone).
      if (!(error instanceof SystemIdTakenError)) {
        await this.#deleteChunks(id, chunks.length, 1).catch(() => undefined);
      }
      await hold?.abort();
      throw error;
    }
    const head = { ...headKey(owner, id), ...headAttributes(record), ...payload };
    try {
      await this.#putNew(head, id);
    } catch (error) {
      // The head may have been written all the same (a timeout after DynamoDB applied it): then
      // the system exists and the create succeeded. When the head is certainly not there, what
      // was written goes and the quota is given back before the caller hears of the failure; when
      // even that cannot be told (the table unreachable), the hold stays (an overcount, until the
      // counter is reconciled) and the chunks are the sweep's.
      if (!(error instanceof SystemIdTakenError)) {
        const current = await this.#readHead(owner, id).catch(() => {
          throw error;
        });
        if (holdsWrite(current, head)) {
          await hold?.commit();
          return record;
        }
      }
      await this.#deleteChunks(id, chunks.length, 1).catch(() => undefined);
      await hold?.abort();
      throw error;
    }
    await hold?.commit();
    return record;
  }

  async get(owner: string, id: string): Promise<StoredSystem | undefined> {
    let Item = await this.#readHead(owner, id);
    for (let attempt = 1; ; attempt++) {
      if (Item === undefined) return undefined;
      try {
        return await this.#readSystem(id, Item);
      } catch (error) {
        if (!(error instanceof SystemStorageError)) throw error;
        // A refresh or a delete that lands between reading the head and reading its chunks
        // removes those chunks: the head then says so (another version, or none), and the
        // reader takes what it says now, the new structure or 404. A head unchanged is storage
        // that is broken, said as it is.
        const now = await this.#readHead(owner, id);
        if (
          attempt >= SWITCHED_HEAD_ATTEMPTS ||
          (now !== undefined &&
            now.version === Item.version &&
            chunkVersionOfHead(now) === chunkVersionOfHead(Item))
        )
          throw error;
        Item = now;
      }
    }
  }

  /** The system a head item points at: its record, and its structure read from the head or its chunks. */
  async #readSystem(id: string, Item: Record<string, unknown>): Promise<StoredSystem> {
    const record = recordFromHeadItem(Item);
    const payload = payloadFromHeadItem(Item);
    const where = `system ${id}`;
    const bytes =
      payload.inline ?? (await this.#readChunks(id, payload.chunkCount, chunkVersionOfHead(Item)));
    if (bytes.byteLength !== payload.byteLength) {
      throw new SystemStorageError(
        `${where}: ${bytes.byteLength} bytes stored, the head records ${payload.byteLength}`,
      );
    }
    const structure = await decodeStructure(
      bytes,
      {
        encoding: payload.encoding,
        sha256: record.sha256,
        nodes: record.nodes,
        dependencies: record.dependencies,
      },
      where,
    );
    return { record, structure };
  }

  async getRecord(owner: string, id: string): Promise<SystemRecord | undefined> {
    checkOwner(owner);
    if (!isSystemId(id)) return undefined;
    const { Item } = await this.#doc.send(
      new GetCommand({
        TableName: this.#tableName,
        Key: headKey(owner, id),
        ConsistentRead: true,
        ...recordProjection(),
      }),
    );
    return Item === undefined ? undefined : recordFromHeadItem(Item);
  }

  async list(owner: string, options: SystemListOptions = {}): Promise<SystemPage> {
    checkOwner(owner);
    const limit = checkLimit(options.limit);
    let startKey: ItemKey | undefined =
      options.cursor === undefined ? undefined : decodeCursor(options.cursor, owner);
    // One more than a page: if it exists there is a next page, and if not the cursor is left
    // out, so a caller never fetches a last page that turns out empty. A Query also stops at
    // 1 MB read (inline structures count, though not returned), hence the loop.
    const items: Record<string, unknown>[] = [];
    do {
      // Stryker disable next-line ArrayDeclaration: a Query's answer always has Items, empty when nothing matched
      const { Items = [], LastEvaluatedKey } = await this.#doc.send(
        new QueryCommand({
          TableName: this.#tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': ownerPartition(owner), ':prefix': HEAD_SK_PREFIX },
          ScanIndexForward: false,
          // Stryker disable next-line ArithmeticOperator: same page, other work: a larger Limit only reads past what the slice keeps
          Limit: limit + 1 - items.length,
          ConsistentRead: true,
          ...recordProjection(),
          // The SDK leaves it out when undefined: the first Query starts at the beginning.
          ExclusiveStartKey: startKey,
        }),
      );
      items.push(...Items);
      startKey = LastEvaluatedKey as ItemKey | undefined;
    } while (items.length <= limit && startKey !== undefined);
    const systems = items.slice(0, limit).map(recordFromHeadItem);
    if (items.length <= limit) return { systems };
    // A full page, and more after it: the next one starts after its last system.
    const last = systems[limit - 1] as SystemRecord;
    return { systems, cursor: encodeCursor(headKey(owner, last.id)) };
  }

  async delete(owner: string, id: string): Promise<boolean> {
    checkOwner(owner);
    if (!isSystemId(id)) return false;
    // A hold without increases: it only keeps a recount from running while the head goes.
    const hold = await this.#quotas?.begin(owner);
    let removed: Record<string, unknown>;
    try {
      const { Attributes } = await this.#doc.send(
        new DeleteCommand({
          TableName: this.#tableName,
          Key: headKey(owner, id),
          ConditionExpression: 'attribute_exists(pk)',
          ReturnValues: 'ALL_OLD',
        }),
      );
      removed = Attributes ?? {};
    } catch (error) {
      // Ending the hold without a decrease is always safe: at worst an overcount.
      await hold?.abort();
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      if (!failedOnRetry(error)) return false;
      // An earlier attempt deleted the head and its answer was lost: the system is gone, by this
      // request. What the head said of its chunks went with that answer, so all are looked up.
      await this.#deleteAllChunks(id).catch(() => undefined);
      return true;
    }
    // The head is gone, so the system already is; the chunks follow. Should this fail, they are
    // orphans like those of a failed create (see the top of this file), and the delete still done.
    const { chunkCount, byteLength } = payloadFromHeadItem(removed);
    await hold?.commit({ systems: -1, bytes: -byteLength });
    await this.#deleteChunks(id, chunkCount, chunkVersionOfHead(removed)).catch(() => undefined);
    return true;
  }

  async replace(
    owner: string,
    id: string,
    replacement: SystemReplacement,
    now: Date = new Date(),
  ): Promise<SystemRecord | undefined> {
    const Item = await this.#readHead(owner, id);
    const { replacing } = replacement;
    if (Item === undefined) {
      // The system was there when the refresh began: a delete finished first.
      if (replacing !== undefined)
        throw new SystemChangedError(`system ${id} was deleted meanwhile; nothing was replaced`);
      return undefined;
    }
    const old = recordFromHeadItem(Item);
    const oldVersion = old.version ?? 1;
    // Another refresh finished while this one fetched: its answer was acknowledged, and this
    // one's older fetch must not undo it.
    if (replacing !== undefined && oldVersion !== replacing) {
      throw new SystemChangedError(`system ${id} was refreshed meanwhile; nothing was replaced`);
    }
    const oldPayload = payloadFromHeadItem(Item);
    const structure = checkStructure(replacement.structure);
    const nodes = structure.nodes.length;
    const dependencies = structure.dependencies.length;
    const { bytes, sha256 } = await encodeStructure(structure);
    if (bytes.length > this.#maxStoredBytes) {
      throw new SystemInputError(
        'structure',
        `structure is too large to store: over ${this.#maxStoredBytes} bytes even compressed`,
      );
    }
    const version = oldVersion + 1;
    const { chunks, payload } = layoutPayload(bytes, this.#chunkBytes);
    // Growth is counted before anything is written, shrinking once the new head is in.
    const growth = bytes.length - oldPayload.byteLength;
    const hold = await this.#quotas?.begin(owner, { bytes: Math.max(0, growth) });
    const oldChunkVersion = chunkVersionOfHead(Item);
    let chunkVersion: number;
    try {
      chunkVersion = await this.#putRefreshChunks(id, owner, chunks, oldChunkVersion + 1, now);
    } catch (error) {
      await hold?.abort();
      throw error;
    }
    // Only the structure's attributes: the settings are the owner's, written by PATCH alone, so
    // a refresh can never undo one that landed while it ran.
    const structureAttributes: Record<string, unknown> = {
      nodes,
      dependencies,
      sha256,
      version,
      refreshedAt: now.toISOString(),
      ...payload,
      ...(replacement.format === undefined ? {} : { format: replacement.format }),
      ...(replacement.unit === undefined ? {} : { unit: replacement.unit }),
      ...(chunkVersion === version ? {} : { chunkVersion }),
    };
    const removed = ['format', 'unit', 'structure', 'chunkVersion'].filter(
      (name) => !Object.hasOwn(structureAttributes, name),
    );
    const update = updateExpression(structureAttributes, removed);
    let updated: Record<string, unknown>;
    try {
      const answer = await this.#doc.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: headKey(owner, id),
          ...update,
          ExpressionAttributeValues: {
            ...update.ExpressionAttributeValues,
            ...(oldVersion === 1 ? {} : { ':oldVersion': oldVersion }),
          },
          // Still the system that was read: not deleted, not replaced by another refresh.
          ConditionExpression:
            oldVersion === 1
              ? 'attribute_exists(pk) AND attribute_not_exists(#version)'
              : 'attribute_exists(pk) AND #version = :oldVersion',
          ReturnValues: 'ALL_NEW',
        }),
      );
      updated = answer.Attributes ?? {};
    } catch (error) {
      // Any other failure may have switched the head: the hold stays, an overcount at worst.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // A lost answer to an applied write: the head is this very version, so this refresh won.
      const current = failedOnRetry(error) ? await this.#readHead(owner, id) : undefined;
      const ours = holdsWrite(current, structureAttributes) && !holdsRemoved(current, removed);
      if (!ours) {
        await hold?.abort();
        // Nobody reads this version's chunks: removing them only saves storage.
        await this.#deleteChunks(id, chunks.length, chunkVersion).catch(() => undefined);
        throw new SystemChangedError(`system ${id} was deleted or refreshed meanwhile; nothing was replaced`);
      }
      updated = current;
    }
    await hold?.commit({ bytes: Math.min(0, growth) });
    // The head points at the new version: the old chunks are unread from now on. The refresh has
    // happened whatever becomes of them; any left behind are orphans for the sweep.
    await this.#deleteChunks(id, oldPayload.chunkCount, oldChunkVersion).catch(() => undefined);
    // The head as it is now: the settings in it are the latest, whatever PATCH landed meanwhile.
    return recordFromHeadItem(updated);
  }

  async updateSettings(
    owner: string,
    id: string,
    settings: SystemSettings | undefined,
    options: { revision?: number; structureVersion?: number } = {},
  ): Promise<SystemRecord | undefined> {
    checkOwner(owner);
    if (!isSystemId(id)) return undefined;
    const { revision, structureVersion } = options;
    // Only the settings' attributes: the structure is the refresh's, so neither undoes the other.
    const text = settingsAttribute(settings);
    const update = updateExpression(
      text === undefined ? {} : { settings: text },
      text === undefined ? ['settings'] : [],
    );
    const condition = settingsCondition(revision, structureVersion);
    try {
      const { Attributes } = await this.#doc.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: headKey(owner, id),
          ...update,
          UpdateExpression: `${update.UpdateExpression} ADD #settingsRevision :one`,
          ExpressionAttributeNames: {
            ...update.ExpressionAttributeNames,
            '#settingsRevision': 'settingsRevision',
            ...(structureVersion === undefined ? {} : { '#version': 'version' }),
          },
          ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':one': 1, ...condition.values },
          ConditionExpression: condition.expression,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return recordFromHeadItem(Attributes ?? {});
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const current = await this.#readHead(owner, id);
      if (current === undefined) return undefined;
      // A refresh came between the check of these settings and their write: checked against a
      // structure no longer there, they are not written (the caller checks them again).
      if (
        structureVersion !== undefined &&
        ((current.version as number | undefined) ?? 1) !== structureVersion
      ) {
        throw new SystemChangedError(`system ${id} was refreshed meanwhile; its settings were not written`);
      }
      // Stryker disable next-line ConditionalExpression: without a revision the only other condition is the structure's version, which held
      if (revision === undefined) return undefined;
      // A lost answer to an applied write: the head holds these settings (none, for a clear), one
      // revision on. A rival PATCH of the same settings is not taken for it: that one failed on
      // its first attempt, and the revision would have moved on from a first attempt that landed.
      if (failedOnRetry(error) && current.settingsRevision === revision + 1 && current.settings === text) {
        return recordFromHeadItem(current);
      }
      throw new SettingsChangedError(
        `system ${id}: its settings are no longer revision ${revision}; nothing was written`,
      );
    }
  }

  /**
   * A system's head item; `undefined` for a malformed or unknown id. Strongly consistent: a system
   * is readable the moment `create` returns, and gone the moment `delete` does.
   */
  async #readHead(owner: string, id: string): Promise<Record<string, unknown> | undefined> {
    checkOwner(owner);
    if (!isSystemId(id)) return undefined;
    const { Item } = await this.#doc.send(
      new GetCommand({ TableName: this.#tableName, Key: headKey(owner, id), ConsistentRead: true }),
    );
    return Item;
  }

  /**
   * Writes `chunks` under `version`'s keys, each a put that never replaces an item. When any put
   * fails (a key taken, `SystemIdTakenError`, or the table), the chunks this call did write are
   * removed before the error is thrown.
   */
  async #putChunks(
    id: string,
    owner: string,
    chunks: readonly Buffer[],
    version: number,
    now: Date,
  ): Promise<void> {
    const written: ItemKey[] = [];
    try {
      await forEachInGroups(chunks, CHUNK_WRITE_CONCURRENCY, async (data, index) => {
        const key = chunkKey(id, index, version);
        await this.#putNew({ ...key, data, owner, writtenAt: now.toISOString() }, id);
        written.push(key);
      });
    } catch (error) {
      // What this call wrote is its own, whatever failed: a taken key's chunks sit among another
      // writer's, and a failed write leaves nothing to read them. Best effort; the sweep has the rest.
      await this.#deleteKeys(written, id).catch(() => undefined);
      throw error;
    }
  }

  /**
   * A refresh's chunks, under the first chunk version from `first` on whose keys are all free.
   * A taken key is not this refresh's to overwrite: a failed refresh left it (an orphan until the
   * sweep), or a rival refresh is writing it now. So two refreshes never mix their chunks, and a
   * retry after a failed refresh is not blocked by its leftovers. Returns the version written.
   */
  async #putRefreshChunks(
    id: string,
    owner: string,
    chunks: readonly Buffer[],
    first: number,
    now: Date,
  ): Promise<number> {
    for (let chunkVersion = first; ; chunkVersion++) {
      try {
        await this.#putChunks(id, owner, chunks, chunkVersion, now);
        return chunkVersion;
      } catch (error) {
        if (!(error instanceof SystemIdTakenError)) throw error;
        if (chunkVersion + 1 - first === REFRESH_CHUNK_VERSIONS) {
          throw new StoreBusyError(
            `system ${id}: chunk versions ${first} to ${chunkVersion} are all taken; nothing was replaced`,
          );
        }
      }
    }
  }

  async #deleteChunks(id: string, chunkCount: number, version: number): Promise<void> {
    await this.#deleteKeys(
      Array.from({ length: chunkCount }, (_, index) => chunkKey(id, index, version)),
      id,
    );
  }

  /** Deletes `keys` in batches, several batches at a time. */
  async #deleteKeys(keys: readonly ItemKey[], id: string): Promise<void> {
    await forEachInGroups(inBatches(keys), CHUNK_WRITE_CONCURRENCY, (batch) =>
      // Stryker disable next-line StringLiteral: the store's chunk deletes are best effort, their errors never shown
      deleteBatch(this.#doc, this.#tableName, batch, `system ${id}`),
    );
  }

  /**
   * A put that never replaces an item. A ULID collision is all but impossible; if one happened,
   * this makes it an error instead of one system's bytes silently overwriting another's.
   */
  async #putNew(item: Record<string, unknown>, id: string): Promise<void> {
    try {
      await this.#doc.send(
        new PutCommand({
          TableName: this.#tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // A lost answer to an applied write: the item is the one this call wrote.
      if (failedOnRetry(error) && holdsWrite(await this.#readItem(item), item)) return;
      throw new SystemIdTakenError(`system id ${id} is already taken; nothing of the new system is visible`);
    }
  }

  /**
   * One item by its keys. A Query, not a GetItem: the connect function may Query both partitions
   * a new system writes to (its chunks', its owner's) but has no GetItem on chunks.
   */
  async #readItem(item: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
    // Stryker disable next-line ArrayDeclaration: a Query's answer always has Items, empty when nothing matched
    const { Items = [] } = await this.#doc.send(
      new QueryCommand({
        TableName: this.#tableName,
        KeyConditionExpression: 'pk = :pk AND sk = :sk',
        ExpressionAttributeValues: { ':pk': item.pk, ':sk': item.sk },
        ConsistentRead: true,
      }),
    );
    return Items[0];
  }

  /** Every chunk of every version of a system, found by a Query on its partition (keys only). */
  async #deleteAllChunks(id: string): Promise<void> {
    const keys: ItemKey[] = [];
    const pages = paginateQuery(
      { client: this.#doc },
      {
        TableName: this.#tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': chunkKey(id, 0).pk },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
      },
    );
    // Stryker disable next-line ArrayDeclaration: a Query's answer always has Items, empty when nothing matched
    for await (const page of pages) for (const item of page.Items ?? []) keys.push(item as ItemKey);
    await this.#deleteKeys(keys, id);
  }

  /** The compressed bytes of a chunked system, refusing a gap, an extra chunk or a short count. */
  async #readChunks(id: string, chunkCount: number, version: number): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    const pages = paginateQuery(
      { client: this.#doc },
      { TableName: this.#tableName, ...chunkRange(id, version), ConsistentRead: true },
    );
    for await (const page of pages) {
      // Stryker disable next-line ArrayDeclaration: a Query's answer always has Items, empty when nothing matched
      for (const item of page.Items ?? []) {
        const expected = chunkKey(id, parts.length, version);
        if (item.sk !== expected.sk) {
          throw new SystemStorageError(
            `system ${id}: expected chunk ${expected.sk}, found ${String(item.sk)}`,
          );
        }
        if (!(item.data instanceof Uint8Array)) {
          throw new SystemStorageError(`system ${id}: chunk ${expected.sk} has no data`);
        }
        parts.push(item.data);
      }
    }
    if (parts.length !== chunkCount) {
      throw new SystemStorageError(
        `system ${id}: ${parts.length} chunks found, the head records ${chunkCount}`,
      );
    }
    return Buffer.concat(parts);
  }
}

/**
 * An UpdateItem's expression: SET each of `set`, REMOVE each of `remove`, every name a placeholder
 * (several are reserved words).
 */
function updateExpression(set: Record<string, unknown>, remove: readonly string[]) {
  const names = [...Object.keys(set), ...remove];
  const sets = Object.keys(set).map((name) => `#${name} = :${name}`);
  const removes = remove.map((name) => `#${name}`);
  return {
    UpdateExpression: [
      ...(sets.length === 0 ? [] : [`SET ${sets.join(', ')}`]),
      ...(removes.length === 0 ? [] : [`REMOVE ${removes.join(', ')}`]),
    ].join(' '),
    ExpressionAttributeNames: Object.fromEntries(names.map((name) => [`#${name}`, name])),
    ExpressionAttributeValues: Object.fromEntries(
      Object.entries(set).map(([name, value]) => [`:${name}`, value]),
    ),
  };
}

/**
 * The condition of a settings write: the head still exists (an update would create it), and with
 * a revision (If-Match), the settings are still that revision (absent: 0).
 */
function settingsCondition(
  revision: number | undefined,
  structureVersion: number | undefined,
): {
  expression: string;
  values: Record<string, number>;
} {
  const terms = ['attribute_exists(pk)'];
  const values: Record<string, number> = {};
  if (revision === 0) terms.push('attribute_not_exists(#settingsRevision)');
  else if (revision !== undefined) {
    terms.push('#settingsRevision = :revision');
    values[':revision'] = revision;
  }
  // Version 1 is the head without a `version` attribute (a refresh writes it from 2 on).
  if (structureVersion === 1) terms.push('attribute_not_exists(#version)');
  else if (structureVersion !== undefined) {
    terms.push('#version = :structureVersion');
    values[':structureVersion'] = structureVersion;
  }
  return { expression: terms.join(' AND '), values };
}

/** Whether `stored` still has any of the attributes an update removed. */
function holdsRemoved(stored: Record<string, unknown>, removed: readonly string[]): boolean {
  return removed.some((name) => stored[name] !== undefined);
}

/**
 * The head's attributes for `record`: the settings and the read options as their JSON text
 * (`settingsAttribute`, `readOptionsAttribute`).
 */
function headAttributes(record: SystemRecord): Record<string, unknown> {
  // None: `undefined`, which the document client leaves out (removeUndefinedValues).
  return {
    ...record,
    settings: settingsAttribute(record.settings),
    readOptions: readOptionsAttribute(record.readOptions),
  };
}

/** A new system's id collided with an existing item: nothing was written. */
class SystemIdTakenError extends Error {
  override readonly name = 'SystemIdTakenError';
}

/**
 * The record's attributes and the keys (which `recordFromHeadItem` checks), without the inline
 * structure: listing a page or reading a record should not carry up to 300 KB per system.
 * `owner`, `name` and `url` are reserved words, hence placeholders for all.
 */
function recordProjection() {
  const attributes = ['pk', 'sk', ...RECORD_ATTRIBUTES];
  return {
    ProjectionExpression: attributes.map((_, index) => `#a${index}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(attributes.map((name, index) => [`#a${index}`, name])),
  };
}

/**
 * Runs `action` on `size` items at a time. Every action of a group settles before an error is
 * thrown, so when a caller sees the failure no write of this call is still in flight.
 */
async function forEachInGroups<T>(
  items: readonly T[],
  size: number,
  action: (item: T, index: number) => Promise<void>,
): Promise<void> {
  // Stryker disable next-line EqualityOperator: one past the end: the extra group is empty, and settles at once
  for (let start = 0; start < items.length; start += size) {
    const results = await Promise.allSettled(
      items.slice(start, start + size).map((item, offset) => action(item, start + offset)),
    );
    const failure = results.find((result) => result.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
  }
}

/**
 * Where a compressed structure goes: inline in the head item when it fits one chunk, else in
 * chunk items; and the head's fields that describe it.
 */
function layoutPayload(bytes: Buffer, chunkBytes: number) {
  const inline = bytes.length <= chunkBytes;
  const chunks = inline ? [] : splitBytes(bytes, chunkBytes);
  const payload = {
    encoding: PAYLOAD_ENCODING,
    byteLength: bytes.length,
    chunkCount: chunks.length,
    ...(inline ? { structure: bytes } : {}),
  };
  return { chunks, payload };
}
