/** Every `error.code` the service answers with, and the status each one carries. */
export const ERROR_STATUS = {
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 403,
  INVALID_MODE: 400,
  INVALID_TICKS: 400,
  PAYLOAD_ERROR: 500,
  LIMIT_EXCEEDED: 413,
  ENGINE_ERROR: 500,
  SYSTEM_NOT_FOUND: 404,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  MISSING_TOKEN: 401,
  INVALID_TOKEN: 401,
  INVALID_REQUEST: 400,
  URL_NOT_ALLOWED: 400,
  UPSTREAM_ERROR: 502,
  UPSTREAM_INVALID: 422,
  INTERNAL_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * An error meant for the caller. Thrown anywhere in a request; turned into the JSON error
 * body `{ error: { code, message, details? } }` in exactly one place (the error middleware).
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
