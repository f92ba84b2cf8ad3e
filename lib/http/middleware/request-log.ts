import type { Logger } from '@aws-lambda-powertools/logger';
import { type HttpMiddleware, type HttpRequest, type RequestFacts, requestFacts, requestIdOf } from './types';

export interface RequestLogOptions {
  logger: Logger;
  /** Milliseconds clock; tests pin it to make durations exact. */
  now?: () => number;
}

/**
 * One INFO line per request, written when the response is settled (`after`, or `onError`
 * once the error middleware has built the error response). It reports the request id,
 * route, status and the facts middlewares collected (key id or user, the hosts connect and
 * refresh fetch from, mode, counts, error code, content encoding) and the duration. Headers and
 * bodies are never logged (but for the host of the URL a connect body names): the Authorization
 * header holds the key, and bodies can be megabytes of caller data.
 */
export function requestLog(options: RequestLogOptions): HttpMiddleware {
  const { logger } = options;
  // The global clock, not an import of node:perf_hooks, which would load at every cold start.
  const now = options.now ?? (() => performance.now());
  const startedAt = new WeakMap<object, number>();

  const requestLogBefore = (request: HttpRequest): void => {
    startedAt.set(request, now());
    requestFacts(request);
  };

  const writeRequestLine = (request: HttpRequest): void => {
    const started = startedAt.get(request);
    const { keyId, user, fetchedHost, redirectedTo, mode, ticks, nodeCount, dependencyCount, errorCode } =
      requestFacts(request);
    // Read off the response that went out, so a 413 that replaced a compressed body logs none.
    const contentEncoding = request.response?.headers?.['content-encoding'];
    logRequestLine(logger, {
      requestId: requestIdOf(request),
      route: request.event?.routeKey,
      status: request.response?.statusCode,
      keyId,
      user,
      fetchedHost,
      redirectedTo,
      mode,
      ticks,
      nodeCount,
      dependencyCount,
      errorCode,
      contentEncoding: typeof contentEncoding === 'string' ? contentEncoding : undefined,
      durationMs: started === undefined ? undefined : now() - started,
    });
  };

  return { before: requestLogBefore, after: writeRequestLine, onError: writeRequestLine };
}

/** Everything one request line may hold; nothing else is ever written. */
export interface RequestLine extends RequestFacts {
  requestId: string | undefined;
  route: string | undefined;
  status: number | undefined;
  contentEncoding?: string | undefined;
  durationMs: number | undefined;
}

/**
 * Writes the one `request` line. The function's middleware and the local server (for the
 * answers it gives itself: unknown routes, preflights, malformed requests) both write
 * through here, so every request is logged the same way.
 */
export function logRequestLine(logger: Logger, line: RequestLine): void {
  logger.info('request', {
    requestId: line.requestId,
    route: line.route,
    status: line.status,
    keyId: line.keyId,
    user: line.user,
    fetchedHost: line.fetchedHost,
    redirectedTo: line.redirectedTo,
    mode: line.mode,
    ticks: line.ticks,
    nodeCount: line.nodeCount,
    dependencyCount: line.dependencyCount,
    errorCode: line.errorCode,
    contentEncoding: line.contentEncoding,
    durationMs: line.durationMs === undefined ? undefined : Math.round(line.durationMs * 1000) / 1000,
  });
}
