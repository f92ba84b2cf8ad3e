import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { routes as realRoutes } from '../../lib/http/routes';
import {
  buildHttpApiEvent,
  exceedsInvocationLimit,
  INVOCATION_PAYLOAD_LIMIT_BYTES,
  mapHttpApiResult,
} from '../../local/http-api-event';

const engineRoute = realRoutes[0]!;

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

describe('the $default route and the invocation limit', () => {
  // A request no route takes goes to API Gateway's catch-all route: its key is `$default`, and
  // it has no path parameters.
  it('keys a request no route takes as $default', () => {
    const built = event({ route: undefined, url: '/nowhere?x=1', method: 'GET' });
    expect(built.routeKey).toBe('$default');
    expect(built.requestContext.routeKey).toBe('$default');
    expect(built.rawPath).toBe('/nowhere');
    expect('pathParameters' in built).toBe(false);
  });

  // Lambda counts the whole event as JSON: a binary body costs 4/3 of its bytes as base64, so
  // a 4.6 MiB gzip body is over 6 MiB and never reaches the function, while the same bytes as
  // JSON text are not.
  it('counts the event as JSON, a binary body as base64', () => {
    const bytes = Buffer.alloc(Math.floor(INVOCATION_PAYLOAD_LIMIT_BYTES * 0.76), 0x61);
    const asText = event({ body: bytes });
    const asBinary = event({
      body: bytes,
      rawHeaders: ['Host', '127.0.0.1:3000', 'Content-Type', 'application/octet-stream'],
    });
    expect(exceedsInvocationLimit(asText)).toBe(false);
    expect(exceedsInvocationLimit(asBinary)).toBe(true);
    expect(exceedsInvocationLimit(event({ body: Buffer.alloc(INVOCATION_PAYLOAD_LIMIT_BYTES, 0x61) }))).toBe(
      true,
    );
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
