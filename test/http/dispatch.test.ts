import { describe, expect, it } from 'vitest';
import { readCorsSettings } from '../../lib/http/cors';
import { createFunctionHandler, type FunctionOptions, type FunctionRoute } from '../../lib/http/dispatch';
import type { HttpResult } from '../../lib/http/responses';
import { routesOf } from '../../lib/http/routes';
import { createLogger } from '../../lib/logging';
import { captureOutput, httpEvent, logLines } from './events';

/** Code per route of a function that answers with its route's name. */
function namedHandlers(fn: 'engine' | 'connect'): Record<string, FunctionRoute> {
  return Object.fromEntries(
    routesOf(fn).map((route) => [
      route.name,
      { handler: async () => ({ statusCode: 200, headers: {}, body: route.name }) },
    ]),
  );
}

/** Every caller is let in: these tests are about choosing the route, not about auth. */
const STACK: FunctionOptions = {
  logger: createLogger({ env: { LOG_LEVEL: 'SILENT' } }),
  verifyApiKey: async () => ({ id: 'k', owner: 'o' }),
  verifyUserToken: async () => ({ sub: 'o' }),
};
const dispatchByRouteKey = (
  fn: 'engine' | 'connect',
  code: Record<string, FunctionRoute>,
  options: Partial<FunctionOptions> = {},
) => createFunctionHandler(fn, code, { ...STACK, ...options });

/** API Gateway's event for a request only the `$default` route takes. */
function defaultRouteEvent(method: string, path: string) {
  const event = httpEvent({ method, path });
  return {
    ...event,
    routeKey: '$default',
    requestContext: { ...event.requestContext, routeKey: '$default' },
  };
}

describe('createFunctionHandler', () => {
  const engine = dispatchByRouteKey('engine', namedHandlers('engine'), { logger: createLogger({ env: {} }) });

  it('calls the handler of the event’s route key, HEAD with the GET handler', async () => {
    const post = httpEvent({ method: 'POST', path: '/api/engine', headers: { authorization: 'Bearer k' } });
    expect(await engine(post, {} as never)).toMatchObject({ body: 'runEngine' });
    const head = httpEvent({ method: 'HEAD', path: '/api/openapi.json' });
    expect(await engine(head, {} as never)).toMatchObject({ body: 'getOpenApiDocument' });
  });

  // The function's time for the request is read as the invocation begins, before any middleware
  // (a large body's decoding and parsing take some of it): the handler sees that first reading
  // as `timeLimitMs`, and the clock going on as `remainingTimeMs`. A clock that loses 1 s at
  // each reading: 15 s at the start, 14 s (or less) in the handler.
  it("hands the handler the function's time as the invocation began", async () => {
    let left = 16_000;
    const context = { getRemainingTimeInMillis: () => (left -= 1_000) };
    const timed = createFunctionHandler(
      'engine',
      {
        ...namedHandlers('engine'),
        runEngine: {
          handler: async ({ timeLimitMs, remainingTimeMs }) => ({
            statusCode: 200,
            headers: {},
            body: JSON.stringify({ timeLimitMs, remaining: remainingTimeMs?.() }),
          }),
        },
      },
      STACK,
    );
    const post = httpEvent({ method: 'POST', path: '/api/engine', headers: { authorization: 'Bearer k' } });
    const { body } = (await timed(post, context as never)) as HttpResult;
    const seen = JSON.parse(body) as { timeLimitMs: number; remaining: number };
    expect(seen.timeLimitMs).toBe(15_000);
    expect(seen.remaining).toBeLessThanOrEqual(14_000);
  });

  // Deployed, `DELETE /api/engine` matches no route and reaches $default: the same 405 as locally.
  it('answers $default for a known path with 405 and Allow, as the local server does', async () => {
    const { result, output } = await captureOutput(
      async () => (await engine(defaultRouteEvent('DELETE', '/api/engine'), {} as never)) as HttpResult,
    );
    expect(result.statusCode).toBe(405);
    expect(result.headers).toMatchObject({ allow: 'POST', 'x-content-type-options': 'nosniff' });
    expect(JSON.parse(result.body).error).toEqual({
      code: 'METHOD_NOT_ALLOWED',
      message: '"/api/engine" does not accept DELETE; use POST.',
    });
    expect(logLines(output)).toMatchObject([
      { message: 'request', route: '$default', status: 405, errorCode: 'METHOD_NOT_ALLOWED' },
    ]);
  });

  it('answers $default for an unknown path with 404 listing the routes', async () => {
    const result = (
      await captureOutput(async () => engine(defaultRouteEvent('GET', '/api/nope'), {} as never))
    ).result as HttpResult;
    expect(result.statusCode).toBe(404);
    const { error } = JSON.parse(result.body);
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toMatch(/^There is no route GET "\/api\/nope"\. Routes: POST \/api\/engine, /);
  });

  // Only the function the route table names for $default answers it; another says it does not serve it.
  it('answers a route key it does not serve with 404, whatever the function', async () => {
    const connect = dispatchByRouteKey('connect', namedHandlers('connect'));
    const result = (await connect(defaultRouteEvent('GET', '/x'), {} as never)) as HttpResult;
    expect(result.statusCode).toBe(404);
    expect(JSON.parse(result.body).error.message).toBe('This function does not serve "$default".');
  });

  // API Gateway's $default route also catches OPTIONS: with CORS on, a preflight gets 204 as locally.
  it('answers a CORS preflight that reaches $default with 204 when CORS is on, 405 when it is off', async () => {
    const cors = readCorsSettings({ CORS_ALLOW_ORIGINS: 'https://app.example.com' });
    const withCors = dispatchByRouteKey('engine', namedHandlers('engine'), { cors });
    const event = defaultRouteEvent('OPTIONS', '/api/engine');
    event.headers = { origin: 'https://app.example.com', 'access-control-request-method': 'POST' };
    const result = (await withCors(event, {} as never)) as HttpResult;
    expect(result.statusCode).toBe(204);
    expect(result.headers).toMatchObject({
      'access-control-allow-origin': 'https://app.example.com',
      'access-control-allow-methods': 'POST',
    });
    const unknownPath = defaultRouteEvent('OPTIONS', '/api/nope');
    unknownPath.headers = event.headers;
    expect(((await withCors(unknownPath, {} as never)) as HttpResult).statusCode).toBe(404);
    const withoutCors = dispatchByRouteKey('engine', namedHandlers('engine'));
    expect(((await withoutCors(event, {} as never)) as HttpResult).statusCode).toBe(405);
  });

  it('refuses at load a route without a handler and a handler without a route', () => {
    const { runEngine: _omitted, ...missing } = namedHandlers('engine');
    expect(() => dispatchByRouteKey('engine', missing)).toThrow(
      'function engine has no handler for route runEngine',
    );
    expect(() =>
      dispatchByRouteKey('engine', {
        ...namedHandlers('engine'),
        connectSystem: namedHandlers('connect').connectSystem!,
      }),
    ).toThrow('function engine has no route connectSystem');
  });
});
