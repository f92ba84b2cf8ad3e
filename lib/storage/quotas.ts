/**
 * Per-owner quotas, counted on one counter item per owner with single-item conditional writes
 * (dynalite has no transactions, and DynamoDB's would not span a multi-megabyte registration).
 *
 *   counter  pk = "OWNER#<owner>"  sk = "QUOTA"
 *            systems, keys, bytes   what the owner holds (bytes: compressed, as stored)
 *            revision               one more on every write of the item
 *            hold_<ULID>            one per change in flight: when it began (ISO 8601)
 *
 * Every change that adds or frees something runs in three steps:
 *
 *   1. begin   one conditional UpdateItem: adds the change's increases, writes its hold, only if
 *              the new totals stay within the limits; a refusal is 409 QUOTA_EXCEEDED;
 *   2. the change itself (the system's chunks and head, the key's items, a delete, a revoke);
 *   3. commit  one UpdateItem: removes the hold and applies the change's decreases (a delete's
 *              system and bytes, a revoke's key, a refresh that shrank);
 *      or abort one UpdateItem: removes the hold and takes its increases back, when the change
 *              certainly did not happen.
 *
 * Increases count before the change and decreases after it, so at every moment, whatever fails
 * between two writes, the counter is at least what the owner really holds: a crash can only
 * overcount, never let an owner past a limit. A write whose answer was lost (the change may or
 * may not have happened) keeps its hold rather than guess.
 *
 * Overcounts do not last: a hold older than an hour belongs to a change that is over (functions
 * time out in seconds), and `reconcile` then recounts the owner's systems and active keys from
 * their own items and writes the exact totals, on the condition that no other hold exists and
 * the revision is the one read, so a change that began meanwhile is never counted away. It runs
 * when a limit refuses a change (so a leak heals the moment it matters) and from `npm run sweep`.
 * The first change of an owner without a counter (a new user, or one from before quotas) starts
 * it from the same recount.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateScan,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { monotonicFactory } from 'ulid';
import type { Quotas } from '../config/quotas';
import { failedOnRetry, StoreBusyError } from './faults';
import { PARTITION_PREFIXES } from './table';

/** What an owner holds, as the quotas count it. */
export interface Usage {
  systems: number;
  keys: number;
  bytes: number;
}

export type QuotaName = keyof Usage;

const QUOTA_NAMES: readonly QuotaName[] = ['systems', 'keys', 'bytes'];
const LIMIT_OF: Record<QuotaName, keyof Quotas> = {
  systems: 'maxSystems',
  keys: 'maxKeys',
  bytes: 'maxBytes',
};

const COUNTER_SK = 'QUOTA';
const HOLD_PREFIX = 'hold_';
/** A hold older than this belongs to a change that is over: functions time out within seconds. */
const STALE_HOLD_MS = 60 * 60 * 1000;

/** One more than a limit allows. */
export class QuotaExceededError extends Error {
  override readonly name = 'QuotaExceededError';
  constructor(
    readonly quota: QuotaName,
    readonly limit: number,
  ) {
    super(`the ${quota} quota of ${limit} would be exceeded`);
  }
}

/** A change in flight; exactly one of its methods ends it. Both are best effort and never throw. */
export interface QuotaHold {
  /** The change happened: apply its decreases (negative numbers) and end the hold. */
  commit(decreases?: Partial<Usage>): Promise<void>;
  /** The change did not happen: take its increases back and end the hold. */
  abort(): Promise<void>;
}

export interface OwnerQuotas {
  /** Counts `increases` (non-negative) against the limits, or throws `QuotaExceededError`. */
  begin(owner: string, increases?: Partial<Usage>): Promise<QuotaHold>;
  /** Drops holds older than an hour and recounts; whether the counts changed. */
  reconcile(owner: string): Promise<boolean>;
}

export interface DynamoOwnerQuotasOptions {
  doc: DynamoDBDocumentClient;
  tableName: string;
  quotas: Quotas;
  /** What the owner really holds, from the items themselves (the stores count them). */
  usage: (owner: string) => Promise<Usage>;
  /** Clock in ms; tests move it past an hour. */
  now?: () => number;
}

export class DynamoOwnerQuotas implements OwnerQuotas {
  readonly #doc: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #quotas: Quotas;
  readonly #usage: (owner: string) => Promise<Usage>;
  readonly #now: () => number;
  readonly #newId = monotonicFactory();

  constructor(options: DynamoOwnerQuotasOptions) {
    this.#doc = options.doc;
    this.#tableName = options.tableName;
    this.#quotas = options.quotas;
    this.#usage = options.usage;
    this.#now = options.now ?? Date.now;
  }

  async begin(owner: string, increases: Partial<Usage> = {}): Promise<QuotaHold> {
    const add = QUOTA_NAMES.filter((name) => (increases[name] ?? 0) > 0).map(
      (name) => [name, increases[name] as number] as const,
    );
    for (const [name, amount] of add) {
      const limit = this.#quotas[LIMIT_OF[name]];
      if (amount > limit) throw new QuotaExceededError(name, limit);
    }
    const hold = `${HOLD_PREFIX}${this.#newId()}`;
    let reconciled = false;
    for (let round = 0; ; round++) {
      try {
        await this.#doc.send(
          new UpdateCommand({
            TableName: this.#tableName,
            Key: counterKey(owner),
            UpdateExpression: `SET #hold = :now ADD #revision :one${add.map(([name]) => `, #${name} :${name}`).join('')}`,
            ConditionExpression: [
              'attribute_exists(#revision)',
              'attribute_not_exists(#hold)',
              ...add.map(([name]) => `#${name} <= :room_${name}`),
            ].join(' AND '),
            ExpressionAttributeNames: {
              '#hold': hold,
              '#revision': 'revision',
              ...Object.fromEntries(add.map(([name]) => [`#${name}`, name])),
            },
            ExpressionAttributeValues: {
              ':now': new Date(this.#now()).toISOString(),
              ':one': 1,
              ...Object.fromEntries(add.map(([name, amount]) => [`:${name}`, amount])),
              ...Object.fromEntries(
                add.map(([name, amount]) => [`:room_${name}`, this.#quotas[LIMIT_OF[name]] - amount]),
              ),
            },
          }),
        );
        return this.#holdFor(owner, hold, add);
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        // Other requests keep changing the counter under this one: a busy table, in effect.
        if (round >= 5) throw new StoreBusyError(`the quota counter of ${owner} kept changing`);
        const counter = await this.#read(owner);
        // A lost answer to an applied write: the hold is there.
        if (failedOnRetry(error) && counter?.[hold] !== undefined) return this.#holdFor(owner, hold, add);
        if (counter === undefined) {
          await this.#initialize(owner);
          continue;
        }
        const over = add.find(
          ([name, amount]) => count(counter, name) + amount > this.#quotas[LIMIT_OF[name]],
        );
        // Room was freed between the refused write and this read: try again.
        if (over === undefined) continue;
        if (!reconciled) {
          reconciled = true;
          if (await this.reconcile(owner)) continue;
        }
        throw new QuotaExceededError(over[0], this.#quotas[LIMIT_OF[over[0]]]);
      }
    }
  }

  async reconcile(owner: string): Promise<boolean> {
    const counter = await this.#read(owner);
    if (counter === undefined) return false;
    const holds = Object.keys(counter).filter((name) => name.startsWith(HOLD_PREFIX));
    const cutoff = this.#now() - STALE_HOLD_MS;
    const stale = holds.filter((name) => Date.parse(String(counter[name])) <= cutoff);
    // A change in flight would be counted wrong by a recount now.
    if (stale.length < holds.length) return false;
    const usage = await this.#usage(owner);
    const changed = QUOTA_NAMES.some((name) => count(counter, name) !== usage[name]);
    if (!changed && stale.length === 0) return false;
    try {
      await this.#doc.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: counterKey(owner),
          UpdateExpression: `SET #systems = :systems, #keys = :keys, #bytes = :bytes ADD #revision :one${
            stale.length === 0 ? '' : ` REMOVE ${stale.map((_, index) => `#stale${index}`).join(', ')}`
          }`,
          ConditionExpression: '#revision = :revision',
          ExpressionAttributeNames: {
            '#systems': 'systems',
            '#keys': 'keys',
            '#bytes': 'bytes',
            '#revision': 'revision',
            ...Object.fromEntries(stale.map((name, index) => [`#stale${index}`, name])),
          },
          ExpressionAttributeValues: {
            ':systems': usage.systems,
            ':keys': usage.keys,
            ':bytes': usage.bytes,
            ':one': 1,
            ':revision': counter.revision,
          },
        }),
      );
    } catch (error) {
      // Changed meanwhile: the next refusal or sweep tries again.
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
    return changed;
  }

  /** The counter item, read strongly consistent. */
  async #read(owner: string): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.#doc.send(
      new GetCommand({ TableName: this.#tableName, Key: counterKey(owner), ConsistentRead: true }),
    );
    return Item;
  }

  /** Starts an owner's counter from what they hold; another request may have started it first. */
  async #initialize(owner: string): Promise<void> {
    const usage = await this.#usage(owner);
    try {
      await this.#doc.send(
        new PutCommand({
          TableName: this.#tableName,
          Item: { ...counterKey(owner), ...usage, revision: 0 },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  #holdFor(owner: string, hold: string, add: ReadonlyArray<readonly [QuotaName, number]>): QuotaHold {
    const end = async (changes: ReadonlyArray<readonly [QuotaName, number]>) => {
      const applied = changes.filter(([, amount]) => amount !== 0);
      try {
        await this.#doc.send(
          new UpdateCommand({
            TableName: this.#tableName,
            Key: counterKey(owner),
            UpdateExpression: `REMOVE #hold ADD #revision :one${applied.map(([name]) => `, #${name} :${name}`).join('')}`,
            // Once only: a retry after a lost answer, or a sweep that already dropped it, changes nothing.
            ConditionExpression: 'attribute_exists(#hold)',
            ExpressionAttributeNames: {
              '#hold': hold,
              '#revision': 'revision',
              ...Object.fromEntries(applied.map(([name]) => [`#${name}`, name])),
            },
            ExpressionAttributeValues: {
              ':one': 1,
              ...Object.fromEntries(applied.map(([name, amount]) => [`:${name}`, amount])),
            },
          }),
        );
      } catch {
        // The hold stays: an overcount, which `reconcile` corrects once the hold is an hour old.
      }
    };
    return {
      commit: (decreases = {}) =>
        end(QUOTA_NAMES.map((name) => [name, Math.min(0, decreases[name] ?? 0)] as const)),
      abort: () => end(add.map(([name, amount]) => [name, -amount] as const)),
    };
  }
}

function counterKey(owner: string): { pk: string; sk: string } {
  return { pk: PARTITION_PREFIXES.owner + owner, sk: COUNTER_SK };
}

function count(counter: Record<string, unknown>, name: QuotaName): number {
  const value = counter[name];
  return typeof value === 'number' ? value : 0;
}

/**
 * Owners whose counter holds a change older than an hour (a request that died between its
 * writes): what `npm run sweep` reconciles. A Scan, for the offline sweep only.
 */
export async function ownersWithStaleHolds(
  doc: DynamoDBDocumentClient,
  tableName: string,
  now: number = Date.now(),
): Promise<Array<{ owner: string; staleHolds: number; since: string }>> {
  const found: Array<{ owner: string; staleHolds: number; since: string }> = [];
  const pages = paginateScan(
    { client: doc },
    {
      TableName: tableName,
      FilterExpression: 'sk = :sk AND begins_with(pk, :owner)',
      ExpressionAttributeValues: { ':sk': COUNTER_SK, ':owner': PARTITION_PREFIXES.owner },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const times = Object.keys(item)
        .filter((name) => name.startsWith(HOLD_PREFIX))
        .map((name) => Date.parse(String(item[name])))
        .filter((time) => time <= now - STALE_HOLD_MS)
        .sort((a, b) => a - b);
      if (times.length === 0) continue;
      found.push({
        owner: String(item.pk).slice(PARTITION_PREFIXES.owner.length),
        staleHolds: times.length,
        since: new Date(times[0]!).toISOString(),
      });
    }
  }
  return found;
}
