import { ApiError } from '../api/errors';
import { quoteText } from '../text';
import { allowedOrigin, type CorsSettings, preflightCorsHeaders } from './cors';
import { type HttpLambdaHandler, type HttpStack, httpRoute } from './http-route';
import type { HttpResult } from './responses';
import { matchRoute, type RouteDefinition, routeKeys } from './routes';

/**
 * The answer to a request no route takes: 405 with `Allow` when the path exists for other
 * methods, else 404 listing the routes. Deployed, API Gateway sends such requests to the
 * `$default` route, whose function answers them with this; the local server does the same.
 */
export function unmatchedRouteError(
  table: readonly RouteDefinition[],
  method: string,
  path: string,
): ApiError {
  const match = matchRoute(table, method, path);
  if (match.kind === 'method-not-allowed') {
    return new ApiError(
      'METHOD_NOT_ALLOWED',
      `${quoteText(path)} does not accept ${method}; use ${match.allow.join(' or ')}.`,
      { headers: { allow: match.allow.join(', ') } },
    );
  }
  return new ApiError(
    'NOT_FOUND',
    `There is no route ${method} ${quoteText(path)}. Routes: ${routeKeys(table).join(', ')}.`,
  );
}

/**
 * The `$default` route, through the same HTTP stack as every route (its log line, headers and
 * error answer): a CORS preflight for a known path is 204 when CORS is on (API Gateway's
 * `$default` route also catches OPTIONS, and a browser would take a 405 as a refusal);
 * anything else is `unmatchedRouteError`.
 */
export function unmatchedRoute(
  table: readonly RouteDefinition[],
  stack: Pick<HttpStack, 'logger'> & { cors?: CorsSettings | undefined },
): HttpLambdaHandler {
  return httpRoute(stack, {
    auth: 'none',
    handler: ({ event }) => {
      const method = event.requestContext?.http?.method ?? '';
      const path = event.rawPath ?? '';
      const preflight = preflightAnswer(table, stack.cors, event.headers ?? {}, method, path);
      if (preflight !== undefined) return preflight;
      throw unmatchedRouteError(table, method, path);
    },
  });
}

/** 204 for a CORS preflight on a known path when CORS is on, with the origin's CORS headers. */
function preflightAnswer(
  table: readonly RouteDefinition[],
  cors: CorsSettings | undefined,
  headers: Readonly<Record<string, string | undefined>>,
  method: string,
  path: string,
): HttpResult | undefined {
  if (cors === undefined || method !== 'OPTIONS' || headers['access-control-request-method'] === undefined) {
    return undefined;
  }
  const match = matchRoute(table, 'OPTIONS', path);
  if (match.kind !== 'method-not-allowed') return undefined;
  return {
    statusCode: 204,
    headers: preflightCorsHeaders(cors, allowedOrigin(cors, headers.origin), match.allow),
    body: '',
  };
}
