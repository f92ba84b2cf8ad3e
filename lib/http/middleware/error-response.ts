import type { Logger } from '@aws-lambda-powertools/logger';
import { classifyFailure } from '../../api/errors';
import { errorResult } from '../responses';
import { type HttpMiddleware, type HttpRequest, requestFacts, requestIdOf } from './types';

export interface ErrorResponseOptions {
  logger: Logger;
}

/**
 * The one `onError` that answers: an `ApiError` becomes its contract status and JSON error
 * body; anything else becomes a generic 500 (ENGINE_ERROR when the engine threw, else
 * INTERNAL_ERROR) and is logged with the request id and its cause, never sent.
 *
 * It sets `request.response` instead of returning it, so middy keeps running the `onError`
 * of middlewares registered before this one (the request log).
 */
export function errorResponse(options: ErrorResponseOptions): HttpMiddleware {
  const { logger } = options;

  const errorResponseOnError = (request: HttpRequest): void => {
    if (request.response !== undefined && request.response !== null) return;
    const { error, unexpected } = classifyFailure(request.error);
    if (unexpected) {
      logger.error(error.code === 'ENGINE_ERROR' ? 'engine failure' : 'unexpected failure', {
        requestId: requestIdOf(request),
        route: request.event?.routeKey,
        error: request.error instanceof Error ? request.error : String(request.error),
      });
    }
    requestFacts(request).errorCode = error.code;
    request.response = errorResult(error);
  };

  return { onError: errorResponseOnError };
}
