import { performance } from 'node:perf_hooks';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { ApiError } from '../api/errors';
import { allowedOrigin, type CorsSettings, preflightCorsHeaders } from './cors';
import { logRequestLine } from './middleware/request-log';
import { API_RESPONSE_HEADERS } from './middleware/response-headers';
import { errorResult, type HttpResult } from './responses';
import {
  DEFAULT_ROUTE_FUNCTION,
  DEFAULT_ROUTE_KEY,
  type FunctionName,
  matchRoute,
  methodsOf,
  routeKey,
  routes,
  routesOf,
} from './routes';
import { unmatchedRouteError } from './unmatched-route';

/** A Lambda handler for HTTP API (payload 2.0) events. */
export type HttpLambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

export interface DispatchOptions {
  /** Writes the request line of the answers the dispatcher gives itself (unknown routes). */
  logger?: Logger;
  /**
   * The API's CORS settings (`CORS_ALLOW_ORIGINS`). API Gateway's `$default` route also catches
   * OPTIONS; a preflight that reaches it is answered 204 as the gateway and the local server
   * answer preflights, never 405, which a browser would take as a refusal.
   */
  cors?: CorsSettings | undefined;
}

/**
 * One function, several routes: API Gateway has already matched the route and says which in
 * `event.routeKey`, so dispatching is a lookup, built from the route table. Every route of the
 * function must have a handler and every handler a route, checked when the module loads, so
 * a route added to the table without code (or the reverse) fails at cold start, not at request.
 * The function behind `$default` answers the requests no route takes with a JSON 404 or 405.
 */
export function dispatchByRouteKey(
  fn: FunctionName,
  handlers: Readonly<Record<string, HttpLambdaHandler>>,
  options: DispatchOptions = {},
): HttpLambdaHandler {
  const byRouteKey = new Map<string, HttpLambdaHandler>();
  const served = routesOf(fn);
  for (const route of served) {
    const handler = handlers[route.name];
    if (handler === undefined) throw new Error(`function ${fn} has no handler for route ${route.name}`);
    for (const method of methodsOf(route)) byRouteKey.set(routeKey({ method, path: route.path }), handler);
  }
  for (const name of Object.keys(handlers)) {
    if (!served.some((route) => route.name === name)) throw new Error(`function ${fn} has no route ${name}`);
  }

  const answerUnmatched = (event: APIGatewayProxyEventV2): HttpResult => {
    const started = performance.now();
    const isDefaultRoute = fn === DEFAULT_ROUTE_FUNCTION && event.routeKey === DEFAULT_ROUTE_KEY;
    const method = event.requestContext?.http?.method ?? '';
    const path = event.rawPath ?? '';
    let answer: HttpResult;
    let errorCode: string | undefined;
    const preflight = isDefaultRoute ? preflightAnswer(options.cors, event, method, path) : undefined;
    if (preflight !== undefined) {
      answer = preflight;
    } else {
      const error = isDefaultRoute
        ? unmatchedRouteError(routes, method, path)
        : new ApiError('NOT_FOUND', `This function does not serve ${JSON.stringify(event.routeKey)}.`);
      const result = errorResult(error);
      answer = { ...result, headers: { ...API_RESPONSE_HEADERS, ...result.headers } };
      errorCode = error.code;
    }
    if (options.logger !== undefined) {
      logRequestLine(options.logger, {
        requestId: event.requestContext?.requestId,
        route: event.routeKey,
        status: answer.statusCode,
        errorCode,
        durationMs: performance.now() - started,
      });
    }
    return answer;
  };

  return async (event, context) => {
    const handler = byRouteKey.get(event.routeKey);
    return handler === undefined ? answerUnmatched(event) : handler(event, context);
  };
}

/** 204 for a CORS preflight on a known path when CORS is on, with the local server's headers. */
function preflightAnswer(
  cors: CorsSettings | undefined,
  event: APIGatewayProxyEventV2,
  method: string,
  path: string,
): HttpResult | undefined {
  const headers = event.headers ?? {};
  if (cors === undefined || method !== 'OPTIONS' || headers['access-control-request-method'] === undefined) {
    return undefined;
  }
  const match = matchRoute(routes, 'OPTIONS', path);
  if (match.kind !== 'method-not-allowed') return undefined;
  return {
    statusCode: 204,
    headers: {
      ...API_RESPONSE_HEADERS,
      ...preflightCorsHeaders(cors, allowedOrigin(cors, headers.origin), match.allow),
    },
    body: '',
  };
}
