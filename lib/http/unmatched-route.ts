import { ApiError } from '../api/errors';
import { quoteText } from '../engine';
import { matchRoute, type RouteDefinition, routeKeys } from './routes';

/**
 * The answer to a request no route takes: 405 with `Allow` when the path exists for other
 * methods, else 404 listing the routes. The local server answers it itself; deployed, API
 * Gateway sends such requests to the `$default` route, whose function answers the same.
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
