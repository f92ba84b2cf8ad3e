import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  FUNCTIONS,
  matchRoute,
  methodsOf,
  type RouteDefinition,
  routeKey,
  routeKeys,
  routes,
} from '../../lib/http/routes';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

describe('route table', () => {
  // The table is what the local server and the CDK stack deploy: each entry must point at real code.
  it('declares each route once, served by one of the two functions, each with an existing entry module', () => {
    expect(routes.map(routeKey).slice(0, 2)).toEqual(['POST /api/engine', 'GET /api/openapi.json']);
    // What the local server answers and the stack deploys: the HEAD route comes with the GET.
    expect(routeKeys()).toContain('HEAD /api/openapi.json');
    expect(routes.find((route) => route.name === 'runEngine')).toMatchObject({
      function: 'engine',
      auth: 'apiKey',
    });
    expect(routes.find((route) => route.name === 'getOpenApiDocument')).toMatchObject({
      function: 'engine',
      auth: 'none',
    });
    // Every route that takes a user access token is served by the connect function, and only those.
    for (const route of routes) expect(route.function === 'connect').toBe(route.auth === 'userToken');
    for (const { entry } of Object.values(FUNCTIONS)) expect(existsSync(repositoryRoot + entry)).toBe(true);
    expect(new Set(routes.map((route) => route.name)).size).toBe(routes.length);
    expect(new Set(routeKeys()).size).toBe(routeKeys().length);
  });
});

describe('matchRoute', () => {
  const table: RouteDefinition[] = [
    { method: 'POST', path: '/api/engine', name: 'engine', function: 'engine', auth: 'apiKey' },
    { method: 'GET', path: '/api/systems/{id}', name: 'system', function: 'connect', auth: 'userToken' },
    {
      method: 'DELETE',
      path: '/api/systems/{id}',
      name: 'deleteSystem',
      function: 'connect',
      auth: 'userToken',
    },
  ];

  it('finds an exact route', () => {
    expect(matchRoute(table, 'POST', '/api/engine')).toMatchObject({
      kind: 'found',
      route: { name: 'engine' },
    });
  });

  // `{id}` takes one segment, URL-decoded.
  it('extracts path parameters', () => {
    expect(matchRoute(table, 'GET', '/api/systems/sys%201')).toEqual({
      kind: 'found',
      route: table[1],
      pathParameters: { id: 'sys 1' },
    });
    expect(matchRoute(table, 'GET', '/api/systems/')).toEqual({ kind: 'not-found' });
    expect(matchRoute(table, 'GET', '/api/systems/a/b')).toEqual({ kind: 'not-found' });
  });

  // A known path with the wrong method lists the methods that path does take.
  it('reports the allowed methods for a known path', () => {
    expect(matchRoute(table, 'GET', '/api/engine')).toEqual({ kind: 'method-not-allowed', allow: ['POST'] });
    expect(matchRoute(table, 'PUT', '/api/systems/x')).toEqual({
      kind: 'method-not-allowed',
      allow: ['DELETE', 'GET', 'HEAD'],
    });
  });

  // Every GET resource answers HEAD too, through the same route and function.
  it('matches HEAD to a GET route, and only to GET routes', () => {
    expect(methodsOf({ method: 'GET' })).toEqual(['GET', 'HEAD']);
    expect(methodsOf({ method: 'POST' })).toEqual(['POST']);
    expect(matchRoute(table, 'HEAD', '/api/systems/a')).toMatchObject({
      kind: 'found',
      route: { name: 'system' },
    });
    expect(matchRoute(table, 'HEAD', '/api/engine')).toEqual({ kind: 'method-not-allowed', allow: ['POST'] });
  });

  it('reports an unknown path, including trailing-slash and case variants', () => {
    for (const path of ['/api/nope', '/api/engine/', '/API/ENGINE', '/']) {
      expect(matchRoute(table, 'POST', path)).toEqual({ kind: 'not-found' });
    }
  });
});
