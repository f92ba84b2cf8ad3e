import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { ApiError } from '../api/errors';
import { API_RESPONSE_HEADERS } from './middleware/response-headers';
import { errorResult, type HttpResult } from './responses';
import { type FunctionName, methodsOf, routeKey, routesOf } from './routes';

/** A Lambda handler for HTTP API (payload 2.0) events. */
export type HttpLambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

/**
 * One function, several routes: API Gateway has already matched the route and says which in
 * `event.routeKey`, so dispatching is a lookup, built from the route table. Every route of the
 * function must have a handler and every handler a route, checked when the module loads, so
 * a route added to the table without code (or the reverse) fails at cold start, not at request.
 */
export function dispatchByRouteKey(
  fn: FunctionName,
  handlers: Readonly<Record<string, HttpLambdaHandler>>,
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
  return async (event, context) => {
    const handler = byRouteKey.get(event.routeKey);
    if (handler !== undefined) return handler(event, context);
    const result = errorResult(
      new ApiError('NOT_FOUND', `This function does not serve ${JSON.stringify(event.routeKey)}.`),
    );
    return { ...result, headers: { ...API_RESPONSE_HEADERS, ...result.headers } } satisfies HttpResult;
  };
}
