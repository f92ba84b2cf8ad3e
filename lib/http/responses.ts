import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { EngineRequest } from '../api/engine-request';
import { analyze, type EngineResult, type Snapshot, tick, ticks } from '../engine';
import { ApiError, type ErrorCode, type ErrorDetail } from './errors';

/** Every JSON response carries this, success or error. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** An HTTP API (payload 2.0) result whose body is always a string and whose headers are always set. */
export interface HttpResult extends APIGatewayProxyStructuredResultV2 {
  statusCode: number;
  headers: Record<string, string | number | boolean>;
  body: string;
}

/** A result whose body is the given text, already serialized as JSON. */
export function jsonTextResult(
  statusCode: number,
  json: string,
  headers: Record<string, string> = {},
): HttpResult {
  return {
    statusCode,
    headers: { ...headers, 'content-type': JSON_CONTENT_TYPE },
    body: json,
    isBase64Encoded: false,
  };
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
 * The one function that turns an `ApiError` into what the caller receives. The error
 * middleware uses it, and so does the local server for the 404/405 that API Gateway would
 * answer before any function runs.
 */
export function errorResult(error: ApiError): HttpResult {
  return jsonTextResult(error.status, JSON.stringify(errorBody(error)), error.headers ?? {});
}

/**
 * Something the engine threw that was not a deliberate `ApiError`: a bug or an exhausted
 * resource inside the engine. The cause is kept for the log and never shown to the caller.
 */
export class EngineFailure extends Error {
  override readonly name = 'EngineFailure';

  constructor(cause: unknown) {
    super('the engine threw while running a request', { cause });
  }
}

const ENGINE_ERROR_MESSAGE =
  'The engine failed while processing this structure. The failure has been logged; ' +
  'sending the same body again will fail the same way, so please report it.';

const INTERNAL_ERROR_MESSAGE =
  'The service failed while handling this request. The failure has been logged; please try again later.';

export interface ClassifiedFailure {
  /** What the caller is told. */
  error: ApiError;
  /** True when this was not a deliberate `ApiError`: it must be logged with its cause. */
  unexpected: boolean;
}

/**
 * Decides what the caller sees for anything thrown while handling a request. Deliberate
 * `ApiError`s go out as they are; an `EngineFailure` becomes a generic ENGINE_ERROR; anything
 * else (a DynamoDB outage while checking the key, a bug in the HTTP layer) a generic
 * INTERNAL_ERROR. Messages, stacks and causes of unexpected errors never reach the caller.
 */
export function classifyFailure(thrown: unknown): ClassifiedFailure {
  if (thrown instanceof ApiError) return { error: thrown, unexpected: false };
  if (thrown instanceof EngineFailure) {
    return { error: new ApiError('ENGINE_ERROR', ENGINE_ERROR_MESSAGE), unexpected: true };
  }
  return { error: new ApiError('INTERNAL_ERROR', INTERNAL_ERROR_MESSAGE), unexpected: true };
}

export type EngineResponseBody =
  | { mode: 'analyze'; engine: EngineResult }
  | { mode: 'tick'; snapshot: Snapshot }
  | { mode: 'ticks'; ticks: number; snapshots: Snapshot[] };

/**
 * Runs the engine for a parsed request and serializes the 200 body, exactly once. The API and
 * the engine CLI both answer through this, so they print byte-identical JSON for the same body.
 * Anything the engine throws comes out as an `EngineFailure`; a result too large to turn into
 * a string at all comes out as LIMIT_EXCEEDED.
 */
export function renderEngineResponse(request: EngineRequest): string {
  let body: EngineResponseBody;
  try {
    body = runEngine(request);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new EngineFailure(error);
  }
  try {
    return JSON.stringify(body);
  } catch (error) {
    if (!(error instanceof RangeError)) throw new EngineFailure(error);
    // JSON.stringify recurses, so extra fields nested tens of thousands deep (which JSON.parse
    // accepts) overflow the stack: that is the caller's payload, not an engine fault.
    if (/call stack/i.test(error.message)) {
      throw new ApiError(
        'PAYLOAD_ERROR',
        'An extra field on a node or dependency is nested too deeply to return; flatten it or leave it out.',
      );
    }
    // V8 refuses strings past ~512 MB; the limits should stop such requests earlier, but if
    // one slips through the honest answer is "too large", not "the engine broke".
    throw new ApiError(
      'LIMIT_EXCEEDED',
      'The result is too large to return; send a smaller structure or ask for fewer ticks.',
    );
  }
}

function runEngine(request: EngineRequest): EngineResponseBody {
  switch (request.mode) {
    case 'analyze':
      return { mode: 'analyze', engine: analyze(request.structure) };
    case 'tick':
      return { mode: 'tick', snapshot: tick(request.structure) };
    case 'ticks':
      return { mode: 'ticks', ticks: request.ticks, snapshots: ticks(request.structure, request.ticks) };
  }
}
