/**
 * The HTTP routes, declared once. The local server serves exactly these, and the CDK stack
 * builds one Lambda integration per entry from the same table, so the two cannot drift apart.
 */

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** How a route authenticates its caller: an API key, a user access token (JWT), or not at all. */
export type RouteAuth = 'apiKey' | 'userToken' | 'none';

/**
 * The Lambda functions of the service, each with the module that exports its `handler`, its
 * timeout and its memory (the CDK stack deploys them; the local server reports the timeout
 * through the Lambda context, as `getRemainingTimeInMillis`, and gives an engine worker the
 * memory as its heap limit; why these values: infra/functions.ts, `FUNCTION_SIZING`).
 */
export const FUNCTIONS = Object.freeze({
  /** `POST /api/engine` with an API key, and the public OpenAPI document. */
  engine: { entry: 'functions/engine/handler.ts', timeoutSeconds: 15, memoryMb: 1769 },
  /** Every route that takes a user access token: connect, systems, self-service keys. */
  connect: { entry: 'functions/connect/handler.ts', timeoutSeconds: 20, memoryMb: 1024 },
});

export type FunctionName = keyof typeof FUNCTIONS;

/**
 * The function behind API Gateway's `$default` route: the requests no route takes, answered
 * with the same JSON 404 or 405 the local server gives. The engine function, because its
 * cold start is the cheaper of the two and it needs no user pool.
 */
export const DEFAULT_ROUTE_FUNCTION: FunctionName = 'engine';

export interface RouteDefinition {
  readonly method: HttpMethod;
  /** API Gateway route path; `{name}` segments are path parameters. */
  readonly path: string;
  /** Short stable name of the operation (the OpenAPI operation, log and test name). */
  readonly name: string;
  /** The Lambda function that serves the route; it dispatches on the event's `routeKey`. */
  readonly function: FunctionName;
  readonly auth: RouteAuth;
}

const route = (
  method: HttpMethod,
  path: string,
  name: string,
  fn: FunctionName,
  auth: RouteAuth,
): RouteDefinition => Object.freeze({ method, path, name, function: fn, auth });

export const routes: readonly RouteDefinition[] = Object.freeze([
  route('POST', '/api/engine', 'runEngine', 'engine', 'apiKey'),
  route('GET', '/api/openapi.json', 'getOpenApiDocument', 'engine', 'none'),
  route('POST', '/api/connect', 'connectSystem', 'connect', 'userToken'),
  route('GET', '/api/systems', 'listSystems', 'connect', 'userToken'),
  route('POST', '/api/systems', 'registerSystem', 'connect', 'userToken'),
  route('GET', '/api/systems/{id}', 'getSystem', 'connect', 'userToken'),
  route('DELETE', '/api/systems/{id}', 'deleteSystem', 'connect', 'userToken'),
  route('PATCH', '/api/systems/{id}', 'updateSystemSettings', 'connect', 'userToken'),
  route('POST', '/api/systems/{id}/refresh', 'refreshSystem', 'connect', 'userToken'),
  route('POST', '/api/keys', 'createKey', 'connect', 'userToken'),
  route('GET', '/api/keys', 'listKeys', 'connect', 'userToken'),
  route('DELETE', '/api/keys/{id}', 'revokeKey', 'connect', 'userToken'),
]);

/** The routes one function serves. */
export function routesOf(fn: FunctionName, table: readonly RouteDefinition[] = routes): RouteDefinition[] {
  return table.filter((candidate) => candidate.function === fn);
}

/** API Gateway's route key for a route, e.g. `POST /api/engine`. */
export function routeKey(route: Pick<RouteDefinition, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}

/**
 * The methods a route answers. A GET route answers HEAD too (the same status and headers,
 * no body), as HTTP expects of every GET resource; the function serves both unchanged.
 */
export function methodsOf(route: Pick<RouteDefinition, 'method'>): HttpMethod[] {
  return route.method === 'GET' ? ['GET', 'HEAD'] : [route.method];
}

/**
 * Every route key the table declares, HEAD routes included: what the local server answers
 * and what the API Gateway stack creates, one integration per key.
 */
export function routeKeys(table: readonly RouteDefinition[] = routes): string[] {
  return table.flatMap((route) => methodsOf(route).map((method) => routeKey({ method, path: route.path })));
}

export type RouteMatch<R extends RouteDefinition = RouteDefinition> =
  | { kind: 'found'; route: R; pathParameters: Record<string, string> }
  /** The path exists but not for this method; `allow` lists the methods it does take. */
  | { kind: 'method-not-allowed'; allow: HttpMethod[] }
  | { kind: 'not-found' };

/**
 * Finds the route for a request the way API Gateway does for these simple routes: exact
 * segments, `{name}` matching one non-empty segment. Path parameters are URL-decoded.
 */
export function matchRoute<R extends RouteDefinition>(
  table: readonly R[],
  method: string,
  path: string,
): RouteMatch<R> {
  const allow: HttpMethod[] = [];
  for (const route of table) {
    const pathParameters = matchPath(route.path, path);
    if (pathParameters === undefined) continue;
    const methods = methodsOf(route);
    if ((methods as string[]).includes(method)) return { kind: 'found', route, pathParameters };
    for (const allowed of methods) if (!allow.includes(allowed)) allow.push(allowed);
  }
  return allow.length > 0 ? { kind: 'method-not-allowed', allow: allow.sort() } : { kind: 'not-found' };
}

function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const expected = pattern.split('/');
  const actual = path.split('/');
  if (expected.length !== actual.length) return undefined;
  const parameters: Record<string, string> = {};
  for (let i = 0; i < expected.length; i++) {
    const want = expected[i] ?? '';
    const got = actual[i] ?? '';
    const parameter = /^\{(\w+)\}$/.exec(want)?.[1];
    if (parameter === undefined) {
      if (want !== got) return undefined;
      continue;
    }
    if (got === '') return undefined;
    const decoded = safeDecode(got);
    if (decoded === undefined) return undefined;
    parameters[parameter] = decoded;
  }
  return parameters;
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
