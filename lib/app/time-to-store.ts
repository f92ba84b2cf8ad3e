import { outOfTime } from '../api/errors';
import type { SystemRecord, SystemStore } from '../systems';

/**
 * Time kept for storing a system: a full-size structure's chunks, a few megabytes in some twenty
 * writes, took about a second against DynamoDB Local; three allow for a busy table.
 */
const STORE_RESERVE_MS = 3000;

/**
 * The function's time left, in milliseconds (Lambda's `getRemainingTimeInMillis`), when the
 * invocation has a clock; `undefined` (a test, a direct call) has all the time it needs.
 */
export type RemainingMs = (() => number) | undefined;

/**
 * Refuses to start storing what the function's time may not cover: 503 (try again), nothing
 * stored. The function's own timeout answers 503 too but cannot stop a write under way, which
 * then stored a system whose caller had been told to try again, so a retry stored it twice.
 */
export function checkTimeToStore(remainingMs: RemainingMs): void {
  if (remainingMs !== undefined && remainingMs() < STORE_RESERVE_MS) throw outOfTime();
}

/**
 * After a new system was stored: if the function's time ran out meanwhile, its caller has had the
 * timeout's 503 and will try again, so the system is deleted (as far as the table lets it) rather
 * than kept beside the one the retry stores.
 */
export async function undoIfOutOfTime(
  systems: Pick<SystemStore, 'delete'>,
  record: Pick<SystemRecord, 'owner' | 'id'>,
  remainingMs: RemainingMs,
): Promise<void> {
  if (remainingMs === undefined || remainingMs() > 0) return;
  await systems.delete(record.owner, record.id).catch(() => undefined);
}
