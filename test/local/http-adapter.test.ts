import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes as realRoutes } from '../../lib/http/routes';
import {
  buildHttpApiEvent,
  createHttpAdapter,
  type HttpApiHandler,
  type LoadedRoute,
  mapHttpApiResult,
} from '../../local/http-adapter';

const engineRoute = realRoutes[0]!;

interface ErrorBody {
  error: { code: string; message: string };
}

function event(overrides: Partial<Parameters<typeof buildHttpApiEvent>[0]> = {}): APIGatewayProxyEventV2 {
  return buildHttpApiEvent({
    method: 'POST',
    url: '/api/engine',
    httpVersion: '1.1',
    rawHeaders: ['Host', '127.0.0.1:3000', 'User-Agent', 'curl/8.0', 'Content-Type', 'application/json'],
    body: Buffer.from('{"mode":"analyze"}'),
    sourceIp: '127.0.0.1',
    route: engineRoute,
    pathParameters: {},
    requestId: 'req-1',
    now: new Date(Date.UTC(2026, 2, 12, 19, 3, 58, 123)),
    ...overrides,
  });
}

describe('buildHttpApiEvent', () => {
  // A curl POST of JSON, as API Gateway HTTP API hands it to Lambda with payload 2.0.
  it('builds a payload 2.0 event', () => {
    expect(event()).toEqual({
      version: '2.0',
      routeKey: 'POST /api/engine',
      rawPath: '/api/engine',
      rawQueryString: '',
      headers: { host: '127.0.0.1:3000', 'user-agent': 'curl/8.0', 'content-type': 'application/json' },
      requestContext: {
        accountId: 'anonymous',
        apiId: 'local',
        domainName: '127.0.0.1',
        domainPrefix: '127',
        http: {
          method: 'POST',
          path: '/api/engine',
          protocol: 'HTTP/1.1',
          sourceIp: '127.0.0.1',
          userAgent: 'curl/8.0',
        },
        requestId: 'req-1',
        routeKey: 'POST /api/engine',
        stage: '$default',
        time: '12/Mar/2026:19:03:58 +0000',
        timeEpoch: Date.UTC(2026, 2, 12, 19, 3, 58, 123),
      },
      body: '{"mode":"analyze"}',
      isBase64Encoded: false,
    });
  });

  // Repeated headers are joined with commas; names are lower-cased; cookies move to their own array.
  it('joins repeated headers and moves cookies out of the headers', () => {
    const built = event({
      rawHeaders: ['X-Tag', 'a', 'x-tag', 'b', 'Cookie', 'session=1; theme=dark', 'Cookie', 'lang=en'],
    });
    expect(built.headers).toEqual({ 'x-tag': 'a,b' });
    expect(built.cookies).toEqual(['session=1', 'theme=dark', 'lang=en']);
  });

  // Query strings: raw as sent, decoded parameters with repeats joined by commas.
  it('keeps the raw query string and decodes parameters', () => {
    const built = event({ url: '/api/engine?a=1&a=2&b=x%20y' });
    expect(built.rawPath).toBe('/api/engine');
    expect(built.rawQueryString).toBe('a=1&a=2&b=x%20y');
    expect(built.queryStringParameters).toEqual({ a: '1,2', b: 'x y' });
    expect(event().queryStringParameters).toBeUndefined();
  });

  // Bodies that are not declared as text (curl -d's form type, no type, binary) arrive base64-encoded.
  it.each([
    [['Content-Type', 'application/x-www-form-urlencoded'], true],
    [[], true],
    [['Content-Type', 'application/octet-stream'], true],
    [['Content-Type', 'application/json; charset=utf-8'], false],
    [['Content-Type', 'text/plain'], false],
    [['Content-Type', 'application/problem+json'], false],
  ])('encodes the body as base64 for headers %j: %j', (rawHeaders, base64) => {
    const built = event({ rawHeaders, body: Buffer.from('{"a":"é"}') });
    expect(built.isBase64Encoded).toBe(base64);
    expect(built.body).toBe(base64 ? Buffer.from('{"a":"é"}').toString('base64') : '{"a":"é"}');
  });

  // No body: no body field at all, as API Gateway sends it.
  it('omits the body when there is none', () => {
    const built = event({ body: Buffer.alloc(0) });
    expect('body' in built).toBe(false);
    expect(built.isBase64Encoded).toBe(false);
  });

  it('formats request times like API Gateway', () => {
    const built = event({ now: new Date(Date.UTC(2020, 0, 5, 1, 2, 3)) });
    expect(built.requestContext.time).toBe('05/Jan/2020:01:02:03 +0000');
  });

  // Text media types in any case reach the function as text; a body without a type as base64.
  it('passes text bodies as text and untyped ones as base64', () => {
    const csv = event({
      rawHeaders: ['Host', '127.0.0.1:3000', 'Content-Type', 'TEXT/CSV'],
      body: Buffer.from('a,b'),
    });
    expect(csv).toMatchObject({ body: 'a,b', isBase64Encoded: false });
    const untyped = event({ rawHeaders: ['Host', '127.0.0.1:3000'], body: Buffer.from('a,b') });
    expect(untyped).toMatchObject({ body: Buffer.from('a,b').toString('base64'), isBase64Encoded: true });
  });
});

describe('mapHttpApiResult', () => {
  // A compressed body comes back from Lambda as base64 and goes to the client as raw bytes.
  it('decodes a base64 body and keeps the headers', () => {
    const mapped = mapHttpApiResult({
      statusCode: 200,
      headers: { 'Content-Encoding': 'gzip', 'content-type': 'application/json' },
      body: Buffer.from([1, 2, 3]).toString('base64'),
      isBase64Encoded: true,
    });
    expect(mapped.statusCode).toBe(200);
    expect([...mapped.body]).toEqual([1, 2, 3]);
    expect(mapped.headers).toEqual({
      'content-encoding': 'gzip',
      'content-type': 'application/json',
      'content-length': '3',
    });
  });

  // Each cookie becomes its own Set-Cookie; multi-value headers become repeated headers.
  it('turns cookies into Set-Cookie headers and keeps multi-value headers', () => {
    const mapped = mapHttpApiResult({
      statusCode: 201,
      headers: { 'x-a': '1' },
      multiValueHeaders: { 'X-A': ['2'], 'x-b': ['3', '4'] },
      cookies: ['a=1; Path=/', 'b=2'],
      body: 'ok',
    });
    expect(mapped.statusCode).toBe(201);
    expect(mapped.headers['x-a']).toEqual(['1', '2']);
    expect(mapped.headers['x-b']).toEqual(['3', '4']);
    expect(mapped.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2']);
    expect(mapped.body.toString()).toBe('ok');
  });

  // Without a statusCode API Gateway assumes 200 JSON: an object is serialized, a string is the body.
  it.each([
    [{ hello: 'world' }, '{"hello":"world"}'],
    ['plain', 'plain'],
    [[1, 2], '[1,2]'],
    [null, 'null'],
  ])('treats %j as a 200 JSON body', (result, body) => {
    const mapped = mapHttpApiResult(result);
    expect(mapped.statusCode).toBe(200);
    expect(mapped.headers['content-type']).toBe('application/json');
    expect(mapped.body.toString()).toBe(body);
  });

  it('sends an empty body when the result has none', () => {
    expect(mapHttpApiResult({ statusCode: 204 }).body.length).toBe(0);
  });
});

describe('createHttpAdapter over real HTTP', () => {
  let server: Server;
  let base: string;
  const seen: APIGatewayProxyEventV2[] = [];

  const echo: HttpApiHandler = async (received) => {
    seen.push(received);
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      cookies: ['seen=1', 'again=2'],
      body: JSON.stringify({
        length: Buffer.from(received.body ?? '', received.isBase64Encoded ? 'base64' : 'utf8').length,
      }),
    };
  };
  const loaded: LoadedRoute[] = [
    {
      method: 'POST',
      path: '/api/engine',
      name: 'engine',
      function: 'engine',
      auth: 'apiKey',
      handler: echo,
    },
    {
      method: 'GET',
      path: '/api/systems/{id}',
      name: 'system',
      function: 'engine',
      auth: 'userToken',
      handler: async (e) => e.pathParameters,
    },
    {
      method: 'GET',
      path: '/api/boom',
      name: 'boom',
      function: 'engine',
      auth: 'none',
      handler: async () => {
        throw new Error('kaput');
      },
    },
  ];
  const failures: string[] = [];

  beforeAll(async () => {
    server = createServer(
      createHttpAdapter({
        routes: loaded,
        maxBodyBytes: 1000,
        onHandlerError: (error) => failures.push(String(error)),
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  // An unknown path is answered by the "gateway" with the contract's JSON error, no handler runs.
  it('answers an unknown route with 404 NOT_FOUND', async () => {
    const response = await fetch(`${base}/api/nope`, { method: 'POST', body: 'x' });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await response.json()) as ErrorBody;
    expect(body.error.code).toBe('NOT_FOUND');
    expect(body.error.message).toContain('POST /api/engine');
  });

  // A known path with the wrong method: 405 with an Allow header.
  it('answers a wrong method with 405 METHOD_NOT_ALLOWED and Allow', async () => {
    const response = await fetch(`${base}/api/engine`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(((await response.json()) as ErrorBody).error.code).toBe('METHOD_NOT_ALLOWED');
  });

  // Cookies set by the function arrive as separate Set-Cookie headers; path parameters reach it.
  it('maps results to real HTTP responses', async () => {
    const response = await fetch(`${base}/api/engine`, {
      method: 'POST',
      body: '{"a":1}',
      headers: { cookie: 'c=1' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie()).toEqual(['seen=1', 'again=2']);
    expect(await response.json()).toEqual({ length: 7 });
    expect(seen.at(-1)?.cookies).toEqual(['c=1']);
    const parameters = await fetch(`${base}/api/systems/abc`).then((r) => r.json());
    expect(parameters).toEqual({ id: 'abc' });
  });

  // A 1 MB upload against a 1000-byte limit: the function sees limit + 1 bytes, enough to answer 413.
  it('keeps at most maxBodyBytes + 1 bytes of a large upload', async () => {
    const response = await fetch(`${base}/api/engine`, { method: 'POST', body: 'x'.repeat(1_000_000) });
    expect(await response.json()).toEqual({ length: 1001 });
  });

  // A function that throws is a 500 in our error format, and the server keeps serving.
  it('answers a throwing handler with 500 INTERNAL_ERROR', async () => {
    const response = await fetch(`${base}/api/boom`);
    expect(response.status).toBe(500);
    const body = (await response.json()) as ErrorBody;
    expect(body.error.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(body)).not.toContain('kaput');
    expect(failures.at(-1)).toContain('kaput');
    expect((await fetch(`${base}/api/systems/x`)).status).toBe(200);
  });
});
