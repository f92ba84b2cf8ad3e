import type { Logger } from '@aws-lambda-powertools/logger';
import { classifyFailure, type IsUnavailable } from '../../api/errors';
import { withSourceMappedStack } from '../../source-mapped-stack';
import { errorResult } from '../responses';
import { type HttpMiddleware, type HttpRequest, requestFacts, requestIdOf } from './types';

export interface ErrorResponseOptions {
  logger: Logger;
  /** Recognises the storage's faults (`isStoreUnavailable`): answered 503, not 500. */
  isUnavailable?: IsUnavailable | undefined;
}

/**
 * The one `onError` that answers: an `ApiError` becomes its contract status and JSON error
 * body; a storage fault a 503 SERVICE_UNAVAILABLE with Retry-After (logged as a warning);
 * anything else a generic 500 (ENGINE_ERROR when the engine threw, else INTERNAL_ERROR),
 * logged with the request id and its cause, never sent.
 *
 * It sets `request.response` instead of returning it, so middy keeps running the `onError`
 * of middlewares registered before this one (the request log).
 */
export function errorResponse(options: ErrorResponseOptions): HttpMiddleware {
  const { logger, isUnavailable } = options;

  const errorResponseOnError = (request: HttpRequest): void => {
    if (request.response !== undefined && request.response !== null) return;
    const { error, unexpected, outOfTime } = classifyFailure(request.error, isUnavailable);
    if (error.code === 'SERVICE_UNAVAILABLE') {
      // Expected under throttling; the request line counts it. The SDK's error names the cause.
      logger.warn(outOfTime === true ? 'function out of time' : 'storage unavailable', {
        requestId: requestIdOf(request),
        route: request.event?.routeKey,
        error:
          request.error instanceof Error
            ? `${request.error.name}: ${request.error.message}`
            : String(request.error),
      });
    } else if (unexpected) {
      logger.error(error.code === 'ENGINE_ERROR' ? 'engine failure' : 'unexpected failure', {
        requestId: requestIdOf(request),
        route: request.event?.routeKey,
        error: request.error instanceof Error ? withSourceMappedStack(request.error) : String(request.error),
      });
    }
    requestFacts(request).errorCode = error.code;
    request.response = errorResult(error);
  };

  return { onError: errorResponseOnError };
}
