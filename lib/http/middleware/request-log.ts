import { performance } from 'node:perf_hooks';
import type { Logger } from '@aws-lambda-powertools/logger';
import { type HttpMiddleware, type HttpRequest, requestFacts, requestIdOf } from './types';

export interface RequestLogOptions {
  logger: Logger;
  /** Milliseconds clock; tests pin it to make durations exact. */
  now?: () => number;
}

/**
 * One INFO line per request, written when the response is settled (`after`, or `onError`
 * once the error middleware has built the error response). It reports the request id,
 * route, status and the facts middlewares collected (key id, mode, counts, error code,
 * content encoding) and the duration. Headers and bodies are never logged: the
 * Authorization header holds the key, and bodies can be megabytes of caller data.
 */
export function requestLog(options: RequestLogOptions): HttpMiddleware {
  const { logger } = options;
  const now = options.now ?? (() => performance.now());
  const startedAt = new WeakMap<object, number>();

  const requestLogBefore = (request: HttpRequest): void => {
    startedAt.set(request, now());
    requestFacts(request);
  };

  const writeRequestLine = (request: HttpRequest): void => {
    const started = startedAt.get(request);
    const { keyId, mode, ticks, nodeCount, dependencyCount, errorCode } = requestFacts(request);
    // Read off the response that went out, so a 413 that replaced a compressed body logs none.
    const contentEncoding = request.response?.headers?.['content-encoding'];
    logger.info('request', {
      requestId: requestIdOf(request),
      route: request.event?.routeKey,
      status: request.response?.statusCode,
      keyId,
      mode,
      ticks,
      nodeCount,
      dependencyCount,
      errorCode,
      contentEncoding,
      durationMs: started === undefined ? undefined : Math.round((now() - started) * 1000) / 1000,
    });
  };

  return { before: requestLogBefore, after: writeRequestLine, onError: writeRequestLine };
}
