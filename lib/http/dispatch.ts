import { ApiError } from '../api/errors';
import type { CorsSettings } from './cors';
import { type HttpLambdaHandler, type HttpStack, httpRoute, type RouteOptions } from './http-route';
import { DEFAULT_ROUTE_FUNCTION, type FunctionName, methodsOf, routeKey, routes, routesOf } from './routes';
import { unmatchedRoute } from './unmatched-route';

/** A route's code and body handling; its auth comes from the route table. */
export type FunctionRoute = Omit<RouteOptions, 'auth'>;

export interface FunctionOptions extends HttpStack {
  /**
   * The API's CORS settings (`CORS_ALLOW_ORIGINS`), for the preflights that reach `$default`
   * (answered by the function `DEFAULT_ROUTE_FUNCTION` names).
   */
  cors?: CorsSettings | undefined;
}

/**
 * One Lambda function, several routes. API Gateway has already matched the route and says which
 * in `event.routeKey`, so dispatching is a lookup, built from the route table; each route is the
 * one HTTP stack (`httpRoute`) with the table's auth. Every route of the function must have code
 * and all code a route, checked when the module loads, so a route added to the table without
 * code (or the reverse) fails at cold start, not at request. The function behind `$default`
 * answers the requests no route takes with a JSON 404 or 405, through the same stack.
 *
 * Why not `@middy/http-router`: it matches the path again (`requestContext.http.path`), where
 * API Gateway's decision is in the route key; it would also take `/api/engine/` for
 * `/api/engine`, which API Gateway does not, and it has no 405 with `Allow` nor preflight answer.
 */
export function createFunctionHandler(
  fn: FunctionName,
  code: Readonly<Record<string, FunctionRoute>>,
  options: FunctionOptions,
): HttpLambdaHandler {
  const byRouteKey = new Map<string, HttpLambdaHandler>();
  const served = routesOf(fn);
  for (const route of served) {
    const routeCode = code[route.name];
    if (routeCode === undefined) throw new Error(`function ${fn} has no handler for route ${route.name}`);
    const handler = httpRoute(options, { ...routeCode, auth: route.auth });
    for (const method of methodsOf(route)) byRouteKey.set(routeKey({ method, path: route.path }), handler);
  }
  for (const name of Object.keys(code)) {
    if (!served.some((route) => route.name === name)) throw new Error(`function ${fn} has no route ${name}`);
  }
  const unmatched =
    fn === DEFAULT_ROUTE_FUNCTION
      ? unmatchedRoute(routes, options)
      : httpRoute(options, {
          auth: 'none',
          handler: ({ event }) => {
            throw new ApiError(
              'NOT_FOUND',
              `This function does not serve ${JSON.stringify(event.routeKey)}.`,
            );
          },
        });

  // `$default` is never a key of the table, so it, and any key this function does not serve, is unmatched.
  return async (event, context) => (byRouteKey.get(event.routeKey) ?? unmatched)(event, context);
}
