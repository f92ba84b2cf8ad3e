import { outOfTime } from '../api/errors';
import type { SystemRecord, SystemStore } from '../systems';

/**
 * Time kept for storing a system: a full-size structure's chunks, a few megabytes in some twenty
 * writes, took about a second against DynamoDB Local; three allow for a busy table. A function
 * given less than four times this (`FUNCTION_TIMEOUT_MS` may be as low as 1 s) keeps a quarter
 * of its time instead, as the engine's run deadline does: a fixed 3 s refused every registration
 * in a function of 3 s.
 */
const STORE_RESERVE_MS = 3000;

/**
 * Middy answers the function's timeout this long before Lambda's (its `timeoutEarlyInMillis`, 5 ms
 * by default), and reading the clock takes a moment: a write that ends with less than this left
 * ended after the timeout's 503 went out.
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
  const reserveMs = Math.min(STORE_RESERVE_MS, (time.limitMs ?? Number.POSITIVE_INFINITY) / 4);
  if (time.remainingMs() < reserveMs) throw outOfTime();
}

/**
 * After a new system was stored: if the function's time ran out meanwhile, its caller has had the
 * timeout's 503 and will try again, so the system is deleted (as far as the table lets it) rather
 * than kept beside the one the retry stores.
 */
export async function undoIfOutOfTime(
  systems: Pick<SystemStore, 'delete'>,
  record: Pick<SystemRecord, 'owner' | 'id'>,
  time: FunctionTime | undefined,
): Promise<void> {
  if (time === undefined || time.remainingMs() > ANSWERED_AT_MS) return;
  await systems.delete(record.owner, record.id).catch(() => undefined);
}
