/**
 * Deleting a system's chunks by key, as the store (after a delete or a refresh) and the sweep do:
 * BatchWriteItem, at most 25 deletes a call (its limit), retrying whatever DynamoDB leaves
 * unprocessed. Unprocessed items mean throttling, which the SDK does not retry for a batch: the
 * first retry goes at once, later ones back off (100 ms doubling, at most a second), and a batch
 * still not empty after eight attempts is `StoreBusyError` (a 503).
 */
import { setTimeout as pause } from 'node:timers/promises';
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { StoreBusyError } from '../storage/faults';
import type { ItemKey } from './items';

/** BatchWriteItem's own limit. */
const BATCH_WRITE_SIZE = 25;
/** DynamoDB may leave part of a batch unprocessed under load; give up after this many tries. */
const BATCH_WRITE_ATTEMPTS = 8;

/** `keys` in batches of at most 25, in order. */
export function inBatches(keys: readonly ItemKey[]): ItemKey[][] {
  const rest = [...keys];
  const batches: ItemKey[][] = [];
  while (rest.length > 0) batches.push(rest.splice(0, BATCH_WRITE_SIZE));
  return batches;
}

/**
 * Deletes one batch (at most 25 keys) of `what`'s chunks. `sleep` is the wait before a retry;
 * tests record it instead of waiting.
 */
export async function deleteBatch(
  doc: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly ItemKey[],
  what: string,
  sleep: (ms: number) => Promise<unknown> = pause,
): Promise<void> {
  let pending: Array<{ DeleteRequest: { Key: Record<string, unknown> } }> = keys.map((key) => ({
    DeleteRequest: { Key: key },
  }));
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === BATCH_WRITE_ATTEMPTS) {
      throw new StoreBusyError(`${what}: ${pending.length} chunks still undeleted after ${attempt} attempts`);
    }
    if (attempt > 1) await sleep(Math.min(1000, 25 * 2 ** attempt));
    const { UnprocessedItems } = await doc.send(
      new BatchWriteCommand({ RequestItems: { [tableName]: pending } }),
    );
    pending = (UnprocessedItems?.[tableName] ?? []) as typeof pending;
  }
}
