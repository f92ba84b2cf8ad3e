/**
 * Every `error.code` the service answers with today, and the status each one carries. A code
 * joins this table in the change that first returns it (the OpenAPI document lists exactly these).
 */
export const ERROR_STATUS = {
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 403,
  MISSING_TOKEN: 401,
  INVALID_TOKEN: 401,
  INVALID_REQUEST: 400,
  URL_NOT_ALLOWED: 400,
  KEY_NOT_FOUND: 404,
  SYSTEM_NOT_FOUND: 404,
  // A refresh that lost a race with another refresh or a delete of the same system.
  SYSTEM_CHANGED: 409,
  // One more system, key or stored byte than the owner's quota allows.
  QUOTA_EXCEEDED: 409,
  // A PATCH with If-Match whose settings changed since that ETag was read.
  PRECONDITION_FAILED: 412,
  UPSTREAM_INVALID: 422,
  UPSTREAM_ERROR: 502,
  INVALID_MODE: 400,
  INVALID_TICKS: 400,
  PAYLOAD_ERROR: 500,
  LIMIT_EXCEEDED: 413,
  UNSUPPORTED_CONTENT_ENCODING: 415,
  ENGINE_ERROR: 500,
  INTERNAL_ERROR: 500,
  // The table stayed throttled or unreachable through every retry: try again after Retry-After.
  SERVICE_UNAVAILABLE: 503,
  // Answered before any route's handler runs: by the local server, and deployed by the function
  // behind the $default route (404, 405) or API Gateway itself (400, 408, 431).
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  BAD_REQUEST: 400,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * The codes that mean the service failed: what alarms count. A 500 PAYLOAD_ERROR is not one,
 * whatever its status says: the contract gives a caller's malformed structure that status.
 */
export const SERVER_FAULT_CODES = ['ENGINE_ERROR', 'INTERNAL_ERROR'] as const satisfies readonly ErrorCode[];

export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * An error meant for the caller. Thrown anywhere in a request; turned into the JSON error
 * body `{ error: { code, message, details? } }` by `errorBody`, in exactly one place per
 * surface (the HTTP error middleware, the engine CLI).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = options.details;
    this.headers = options.headers;
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
}

export function errorBody(error: ApiError): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  };
}

/**
 * Something the engine threw that was not a deliberate `ApiError`: a bug, a broken invariant
 * or an exhausted resource inside the engine. The cause is kept for the log and never shown
 * to the caller.
 */
export class EngineFailure extends Error {
  override readonly name = 'EngineFailure';

  constructor(cause: unknown) {
    super('the engine threw while running a request', { cause });
  }
}

export const ENGINE_ERROR_MESSAGE =
  'The engine failed while processing this structure. The failure has been logged; ' +
  'sending the same body again will fail the same way, so please report it.';

/** The engine's answer to `{ mode, systemId }` for a system the key's owner does not have. */
export const SYSTEM_NOT_FOUND_MESSAGE =
  'systemId names none of the systems registered by the owner of this API key.';
export const SYSTEM_NOT_FOUND_DETAIL = "not a system of this key's owner";

/** Seconds a caller is asked to wait after a 503: throttles and brief outages usually clear by then. */
const RETRY_AFTER_SECONDS = 2;

/** What the caller is told when the table could not serve the request; nothing of it was half done. */
export function serviceUnavailable(): ApiError {
  return unavailable("The service's storage is busy or unreachable right now, so nothing was changed");
}

/** A 503 with `Retry-After`: `why`, then when to try again. */
function unavailable(why: string): ApiError {
  return new ApiError('SERVICE_UNAVAILABLE', `${why}; try again in ${RETRY_AFTER_SECONDS} seconds.`, {
    headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
  });
}

/**
 * 503 for a request that ran out of the function's time. The same words whether middy's timeout
 * answered it or a use case saw the time would not cover its write and stored nothing.
 */
export function outOfTime(): ApiError {
  const error = unavailable("The request did not finish within the service's time limit");
  OUT_OF_TIME.add(error);
  return error;
}

/** The 503s `outOfTime` made: logged as the function's time, not as the storage's fault. */
const OUT_OF_TIME = new WeakSet<ApiError>();

/**
 * Whether `error` is middy's own: the function's time ran out before the handler answered
 * (middy stops it a few milliseconds before Lambda would, so that it can still answer). Its
 * name, `TimeoutError`, is also the AWS SDK's for a storage call that timed out: the cause tells
 * them apart, and this one is not the storage's to answer for.
 */
function isFunctionTimeout(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === 'TimeoutError' &&
    (error.cause as { package?: unknown } | undefined)?.package === '@middy/core'
  );
}

/** The per-owner quotas (`lib/config/quotas.ts`). */
export type QuotaName = 'systems' | 'keys' | 'bytes';

/** 409: one more than the owner's quota allows; names the limit and how to make room. */
export function quotaExceeded(quota: QuotaName, limit: number): ApiError {
  const message = {
    systems: `You already have ${limit} systems, the most one user may keep (MAX_SYSTEMS_PER_OWNER). Delete one you no longer need (DELETE /api/systems/{id}) to make room.`,
    keys: `You already have ${limit} active API keys, the most one user may hold (MAX_KEYS_PER_OWNER). Revoke one you no longer use (DELETE /api/keys/{id}) to make room.`,
    bytes: `This would take your stored systems past ${limit} bytes (compressed), the most one user may store (MAX_BYTES_PER_OWNER). Delete systems you no longer need (DELETE /api/systems/{id}) to make room.`,
  }[quota];
  return new ApiError('QUOTA_EXCEEDED', message, {
    details: [{ path: `quota.${quota}`, message: `at most ${limit}` }],
  });
}

const INTERNAL_ERROR_MESSAGE =
  'The service failed while handling this request. The failure has been logged; please try again later.';

export interface ClassifiedFailure {
  /** What the caller is told. */
  error: ApiError;
  /** True when this was not a deliberate `ApiError`: it must be logged with its cause. */
  unexpected: boolean;
  /** The 503 of a request that ran out of the function's time, not the storage's. */
  outOfTime?: true;
}

/** Says whether a thrown error means the storage could not serve the request (throttled, down). */
export type IsUnavailable = (thrown: unknown) => boolean;

/**
 * Decides what the caller sees for anything thrown while handling a request. Deliberate
 * `ApiError`s go out as they are; what `isUnavailable` recognises (DynamoDB throttled or down
 * through every retry, while checking the key or in any use case) becomes 503
 * SERVICE_UNAVAILABLE with Retry-After; an `EngineFailure` becomes a generic ENGINE_ERROR;
 * anything else (a bug) a generic INTERNAL_ERROR. Messages, stacks and causes of unexpected
 * errors never reach the caller.
 */
export function classifyFailure(thrown: unknown, isUnavailable?: IsUnavailable): ClassifiedFailure {
  if (thrown instanceof ApiError) {
    return OUT_OF_TIME.has(thrown)
      ? { error: thrown, unexpected: false, outOfTime: true }
      : { error: thrown, unexpected: false };
  }
  // Retried, a request that ran out of the function's time may well finish.
  if (isFunctionTimeout(thrown)) {
    return { error: outOfTime(), unexpected: true, outOfTime: true };
  }
  if (isUnavailable?.(thrown) === true) return { error: serviceUnavailable(), unexpected: true };
  if (thrown instanceof EngineFailure) {
    return { error: new ApiError('ENGINE_ERROR', ENGINE_ERROR_MESSAGE), unexpected: true };
  }
  return { error: new ApiError('INTERNAL_ERROR', INTERNAL_ERROR_MESSAGE), unexpected: true };
}
