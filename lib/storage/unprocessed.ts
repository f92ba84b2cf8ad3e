/**
 * DynamoDB's batch calls (BatchGetItem, BatchWriteItem) answer throttling inside a batch by
 * leaving part of it unprocessed, which the SDK does not retry. Both stores send the rest again
 * the same way: the first retry at once, later ones after a pause (100 ms doubling, at most a
 * second), and a batch still not empty after eight requests is `StoreBusyError` (a 503).
 */
import { setTimeout as pause } from 'node:timers/promises';
import { StoreBusyError } from './faults';

/** Requests of one batch, the first included, before it counts as busy. */
const BATCH_ATTEMPTS = 8;

/**
 * Sends `items` with `send`, which answers what DynamoDB left unprocessed, until nothing is left.
 * `busy` words the error from how many items are left and after how many requests; `sleep` is the
 * wait before a retry, which tests record instead of waiting.
 */
export async function untilProcessed<T>(
  items: T[],
  send: (items: T[]) => Promise<T[]>,
  busy: (left: number, attempts: number) => string,
  sleep: (ms: number) => Promise<unknown> = pause,
): Promise<void> {
  let pending = items;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === BATCH_ATTEMPTS) throw new StoreBusyError(busy(pending.length, attempt));
    if (attempt > 1) await sleep(Math.min(1000, 25 * 2 ** attempt));
    pending = await send(pending);
  }
}
