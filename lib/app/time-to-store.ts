import { outOfTime } from '../api/errors';
import { reserveWithin } from '../api/run-deadline';
import type { CompiledStructure, ShouldStop } from '../engine';
import {
  type CompiledStructureCache,
  type SystemRecord,
  type SystemStore,
  toPublicSystemRecord,
} from '../systems';
import type { ConnectedSystem } from './connect-system';

/**
 * Time kept for storing a system: a full-size structure's chunks, a few megabytes in some twenty
 * writes, took about a second against DynamoDB Local; three allow for a busy table. A function
 * given less than four times this keeps a quarter of its time instead (`reserveWithin`, as the
 * engine's run deadline does): a fixed 3 s refused every registration in a function of 3 s.
 */
const STORE_RESERVE_MS = 3000;

/**
 * Middy answers the function's timeout 5 ms before Lambda's end (its `timeoutEarlyInMillis`): a
 * write that ends with less than this left may have ended after that 503 went out, or may end
 * with it about to go.
 */
const ANSWERED_AT_MS = 50;

/** The function's time, as Lambda's clock gives it; `undefined` (a test, a direct call): all it needs. */
export interface FunctionTime {
  /** Milliseconds left (`getRemainingTimeInMillis`). */
  remainingMs: () => number;
  /** Milliseconds the request had as the invocation began. */
  limitMs?: number | undefined;
}

/**
 * Refuses to start storing what the function's time may not cover: 503 (try again), nothing
 * stored. The function's own timeout answers 503 too but cannot stop a write under way, which
 * then stored a system whose caller had been told to try again, so a retry stored it twice.
 */
export function checkTimeToStore(time: FunctionTime | undefined): void {
  if (time === undefined) return;
  // A clock that reads no number (none in Lambda or locally) is no clock: as without one.
  const remaining = time.remainingMs();
  if (Number.isFinite(remaining) && remaining < storeReserveMs(time)) throw outOfTime();
}

/** The time kept for a write, from the request's limit (`reserveWithin`). */
function storeReserveMs(time: FunctionTime): number {
  return reserveWithin(limitOf(time), STORE_RESERVE_MS);
}

/** The request's limit; without one (a clock with no limit given), no limit. */
function limitOf(time: FunctionTime): number {
  return time.limitMs !== undefined && Number.isFinite(time.limitMs)
    ? time.limitMs
    : Number.POSITIVE_INFINITY;
}

/**
 * Stores a new system within the function's time: refused before the write when the time left may
 * not cover it (`checkTimeToStore`); and if the time ran out while it was written (less than
 * `ANSWERED_AT_MS` left), its caller has had, or is about to have, the timeout's 503 and will try
 * again, so the system is deleted (as far as the table lets it) rather than kept beside the one
 * the retry stores, and the request answers the same 503 itself: never a 201 for a system that
 * is gone.
 */
async function createWithinTime(
  systems: Pick<SystemStore, 'create' | 'delete'>,
  system: Parameters<SystemStore['create']>[0],
  time: FunctionTime | undefined,
): Promise<SystemRecord> {
  checkTimeToStore(time);
  const record = await systems.create(system);
  if (time === undefined || !(time.remainingMs() <= ANSWERED_AT_MS)) return record;
  await systems.delete(record.owner, record.id).catch(() => undefined);
  throw outOfTime();
}

/**
 * A new system read by connect or sent to `POST /api/systems`, stored within the function's time
 * (`createWithinTime`) and shown as its owner sees it, with the read's warnings. Without settings
 * its compiled structure goes to the cache for its runs; runs with settings compile the structure
 * with them applied (a key of its own).
 */
export async function storeNewSystem(
  deps: { systems: Pick<SystemStore, 'create' | 'delete'>; cache?: CompiledStructureCache | undefined },
  system: Parameters<SystemStore['create']>[0],
  read: { compiled: CompiledStructure; warnings: string[] },
  time: FunctionTime | undefined,
): Promise<ConnectedSystem> {
  const record = await createWithinTime(deps.systems, system, time);
  if (system.settings === undefined) deps.cache?.set(record.sha256, read.compiled);
  const shown = toPublicSystemRecord(record);
  return read.warnings.length === 0 ? shown : { ...shown, warnings: read.warnings };
}

/**
 * Time kept after a fetch cut short by the function's time, to read what came and answer: the
 * fetch's own 504 then goes out, not the function's timeout with no body. A quarter of a function
 * given less than four times this (`reserveWithin`).
 */
const AFTER_FETCH_RESERVE_MS = 1000;
/** The shortest fetch worth starting: with less than this to give it, the request is answered 503. */
const SHORTEST_FETCH_MS = 100;

/**
 * The outbound fetch's deadline within the function's time: the deployment's (`configuredMs`,
 * `CONNECT_DEADLINE_MS`), or the function's time left less `AFTER_FETCH_RESERVE_MS`, whichever is
 * less. With less than `SHORTEST_FETCH_MS` to give it, nothing is fetched: 503, try again (as a
 * write the time would not cover). `configuredMs` as it is without a clock. What follows the fetch
 * has its own checks: the store's reserve (`checkTimeToStore`), the analysis' (`checkDeadline`).
 */
export function fetchDeadlineWithin(configuredMs: number, time: FunctionTime | undefined): number {
  if (time === undefined) return configuredMs;
  const remaining = time.remainingMs();
  if (!Number.isFinite(remaining)) return configuredMs;
  const left = Math.floor(remaining - reserveWithin(limitOf(time), AFTER_FETCH_RESERVE_MS));
  if (left < SHORTEST_FETCH_MS) throw outOfTime();
  return Math.min(configuredMs, left);
}

/**
 * When a check that runs the engine (`settingsRunRefusal`) must give up: before a write, with
 * less than twice the store's reserve left, so that the write still has its time; after one
 * (`afterWrite`), with less than the reserve left, so that the answer still goes out. `undefined`
 * without a clock: such a check runs to its end.
 */
export function checkDeadline(
  time: FunctionTime | undefined,
  { afterWrite = false }: { afterWrite?: boolean } = {},
): ShouldStop | undefined {
  if (time === undefined) return undefined;
  const keep = (afterWrite ? 1 : 2) * storeReserveMs(time);
  return () => time.remainingMs() < keep;
}
