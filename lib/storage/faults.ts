/**
 * Which failures of the table mean "DynamoDB cannot serve us right now", as opposed to a bug or
 * a refused condition. The SDK has already retried them (`lib/aws/dynamo.ts`); what is still
 * failing is answered 503 SERVICE_UNAVAILABLE with Retry-After, never a 500.
 */
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';

/**
 * Thrown by the stores when DynamoDB keeps leaving part of a batch unprocessed: the batch form
 * of a throttle, which the SDK does not retry by itself.
 */
export class StoreBusyError extends Error {
  override readonly name = 'StoreBusyError';
}

/**
 * True for throttling (`ThrottlingException`, `ProvisionedThroughputExceededException`,
 * `RequestLimitExceeded`, any 429), server errors (`InternalServerError`, any 5xx), timeouts and
 * dropped or refused connections, judged by the SDK's own classification, and for
 * `StoreBusyError`. A `ConditionalCheckFailedException`, a `ValidationException` or a bug is not.
 */
export function isStoreUnavailable(error: unknown): boolean {
  if (error instanceof StoreBusyError) return true;
  if (!(error instanceof Error)) return false;
  // The SDK's classifiers read `name`, `code`, `$metadata` and `$retryable` off any error.
  const sdkError = error as Parameters<typeof isTransientError>[0];
  return isThrottlingError(sdkError) || isTransientError(sdkError) || isServerError(sdkError);
}

/**
 * Whether a conditional write failed its condition on a retry. The first attempt may have been
 * applied with its answer lost (a timeout, a 500 after the write): the retry then meets the
 * write's own result. Callers check the item and take it as theirs when it is what they wrote.
 */
export function failedOnRetry(error: unknown): boolean {
  const attempts = (error as { $metadata?: { attempts?: unknown } } | undefined)?.$metadata?.attempts;
  return typeof attempts === 'number' && attempts > 1;
}

/** Whether `stored` holds every attribute of `written` with the same value (bytes compared by content). */
export function holdsWrite(
  stored: Record<string, unknown> | undefined,
  written: Record<string, unknown>,
): stored is Record<string, unknown> {
  return (
    stored !== undefined && Object.entries(written).every(([name, value]) => sameValue(stored[name], value))
  );
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.from(a).equals(Buffer.from(b));
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    // Undefined attributes are never stored (`removeUndefinedValues`), so they do not count.
    const keysA = Object.keys(a).filter((key) => (a as Record<string, unknown>)[key] !== undefined);
    const keysB = Object.keys(b).filter((key) => (b as Record<string, unknown>)[key] !== undefined);
    return (
      keysA.length === keysB.length &&
      keysA.every((key) =>
        sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
      )
    );
  }
  return Object.is(a, b);
}
