/**
 * Deleting a system's chunks by key, as the store (after a delete or a refresh) and the sweep do:
 * BatchWriteItem, at most 25 deletes a call (its limit), retrying whatever DynamoDB leaves
 * unprocessed as `untilProcessed` does (lib/storage/unprocessed.ts).
 */
import { setTimeout as pause } from 'node:timers/promises';
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { untilProcessed } from '../storage/unprocessed';
import type { ItemKey } from './items';

/** BatchWriteItem's own limit. */
const BATCH_WRITE_SIZE = 25;

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
  const requests = keys.map((key) => ({ DeleteRequest: { Key: key } }));
  await untilProcessed(
    requests,
    async (pending) => {
      const { UnprocessedItems } = await doc.send(
        new BatchWriteCommand({ RequestItems: { [tableName]: pending } }),
      );
      return (UnprocessedItems?.[tableName] ?? []) as typeof pending;
    },
    (left, attempts) => `${what}: ${left} chunks still undeleted after ${attempts} attempts`,
    sleep,
  );
}
