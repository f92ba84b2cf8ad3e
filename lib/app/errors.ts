/**
 * How the adapters' own errors read in the contract. Each use case catches at its boundary and
 * passes what it caught through `contractError` once, so every domain error has exactly one code.
 */
import { ApiError, type ErrorCode, quotaExceeded } from '../api/errors';
import { ApiKeyInputError } from '../keys';
// The errors' own module: the outbound index would bring the fetch (node:https, ipaddr.js) with it.
import { OutboundError, type OutboundErrorCode } from '../outbound/errors';
import { QuotaExceededError, SettingsChangedError, SystemChangedError, SystemInputError } from '../systems';

/** The outbound errors' codes, named so a renamed one cannot slip through as an unknown code. */
const OUTBOUND_CODES = {
  URL_NOT_ALLOWED: 'URL_NOT_ALLOWED',
  UPSTREAM_ERROR: 'UPSTREAM_ERROR',
  UPSTREAM_INVALID: 'UPSTREAM_INVALID',
} as const satisfies Record<OutboundErrorCode, ErrorCode>;

/**
 * The contract's error for what an adapter threw; anything that is not a known domain error
 * is returned as it is, for the HTTP stack to answer: a DynamoDB fault as 503
 * SERVICE_UNAVAILABLE, a bug as a generic 500.
 */
function contractError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  if (error instanceof OutboundError) return new ApiError(OUTBOUND_CODES[error.code], error.message);
  if (error instanceof QuotaExceededError) return quotaExceeded(error.quota, error.limit);
  if (error instanceof SystemChangedError) {
    return new ApiError(
      'SYSTEM_CHANGED',
      'The system was deleted or refreshed meanwhile; nothing was replaced: try again.',
    );
  }
  if (error instanceof SettingsChangedError) return settingsChanged();
  // A structure too large to store is checked before anything is written: a 413, like every size limit.
  if (error instanceof SystemInputError && error.field === 'structure') {
    return new ApiError('LIMIT_EXCEEDED', error.message);
  }
  if (error instanceof SystemInputError || error instanceof ApiKeyInputError) {
    return new ApiError('INVALID_REQUEST', error.message, {
      details: [{ path: error.field, message: error.message }],
    });
  }
  return error;
}

/** Runs `work`, answering its domain errors in the contract's terms. */
export async function inContractTerms<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw contractError(error);
  }
}

/** A PATCH whose If-Match names settings that are no longer the system's. */
export function settingsChanged(): ApiError {
  return new ApiError(
    'PRECONDITION_FAILED',
    "The system's settings changed since the ETag in If-Match was read; nothing was written: GET the system for its settings and ETag, then PATCH again.",
  );
}

/** A PATCH whose If-None-Match lists the settings' current tag, or `*`. */
export function settingsUnchanged(): ApiError {
  return new ApiError(
    'PRECONDITION_FAILED',
    "The system's settings are still the ones If-None-Match lists (or it lists *, which matches any settings, none included: they have a tag too); nothing was written.",
  );
}

/**
 * A PATCH pinned to the settings it read (by If-None-Match, or by the kept entries it sends
 * back) whose settings other PATCHes kept changing between its read and its write.
 */
export function settingsKeptChanging(asking: 'If-None-Match' | 'kept entries'): ApiError {
  return new ApiError(
    'PRECONDITION_FAILED',
    asking === 'If-None-Match'
      ? "The system's settings kept changing while this PATCH was asking If-None-Match of them; nothing was written: GET the system, then PATCH again."
      : "The system's settings kept changing while this PATCH was sending back the entries they keep for nodes a refresh removed; nothing was written: GET the system, then PATCH again.",
  );
}

/** A system the caller does not have: another user's and a missing one answer the same. */
export function systemNotFound(): ApiError {
  return new ApiError('SYSTEM_NOT_FOUND', 'You have no system with this id.');
}
