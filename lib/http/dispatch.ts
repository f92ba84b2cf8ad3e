import { performance } from 'node:perf_hooks';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { ApiError } from '../api/errors';
import { logRequestLine } from './middleware/request-log';
import { API_RESPONSE_HEADERS } from './middleware/response-headers';
import { errorResult, type HttpResult } from './responses';
import {
  DEFAULT_ROUTE_FUNCTION,
  DEFAULT_ROUTE_KEY,
  type FunctionName,
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
    const error =
      fn === DEFAULT_ROUTE_FUNCTION && event.routeKey === DEFAULT_ROUTE_KEY
        ? unmatchedRouteError(routes, event.requestContext?.http?.method ?? '', event.rawPath ?? '')
        : new ApiError('NOT_FOUND', `This function does not serve ${JSON.stringify(event.routeKey)}.`);
    const result = errorResult(error);
    if (options.logger !== undefined) {
      logRequestLine(options.logger, {
        requestId: event.requestContext?.requestId,
        route: event.routeKey,
        status: result.statusCode,
        errorCode: error.code,
        durationMs: performance.now() - started,
      });
    }
    return { ...result, headers: { ...API_RESPONSE_HEADERS, ...result.headers } };
  };

  return async (event, context) => {
    const handler = byRouteKey.get(event.routeKey);
    return handler === undefined ? answerUnmatched(event) : handler(event, context);
  };
}
