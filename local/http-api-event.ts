/**
 * API Gateway HTTP API, payload format 2.0, as one module: the event API Gateway builds from an
 * HTTP request, and how it reads a function's result back into an HTTP response. The local
 * server's adapter (local/http-adapter.ts) and the deploy rehearsal (the synthesized bundles run
 * on Node 24, test/infra/rehearsal.test.ts) both build their events here, so the two cannot drift.
 *
 * What API Gateway does, and this does too: header names lower-cased, repeated headers joined
 * with commas, cookies moved out of the headers into `cookies`; `rawPath` and `rawQueryString`
 * as sent, `queryStringParameters` decoded with repeats comma-joined; `routeKey` the matched
 * route's (`POST /api/engine`) or `$default` when no route takes the request; the body as UTF-8
 * text for text media types and base64 (`isBase64Encoded`) for everything else; and Lambda's
 * 6 MB limit on the whole invocation payload, the event as JSON.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { HttpResult } from '../lib/http/responses';
import { type HttpMethod, type RouteDefinition, routeKey } from '../lib/http/routes';

/** The route key of API Gateway's catch-all route, which takes the requests no other route takes. */
export const DEFAULT_ROUTE_KEY = '$default';

/**
 * Lambda's limit on a synchronous invocation's payload, the event as JSON: 6 MB, which AWS counts
 * as 6 × 2^20 bytes. A request whose event is larger never reaches the function; API Gateway
 * answers 413 itself.
 * @internal test/infra/rehearsal holds the bundles' results to the same limit.
 */
export const INVOCATION_PAYLOAD_LIMIT_BYTES = 6 * 1024 * 1024;

/** What API Gateway needs to know about one HTTP request to build its event. */
export interface RawHttpRequest {
  method: string;
  /** Path and query as sent, e.g. `/api/engine?x=1`. */
  url: string;
  httpVersion: string;
  /** Node's `rawHeaders`: name, value, name, value, … in arrival order. */
  rawHeaders: readonly string[];
  body: Buffer;
  sourceIp: string;
  /** The route that takes the request; `undefined` when none does and `$default` gets it. */
  route: RouteDefinition | undefined;
  pathParameters: Record<string, string>;
  requestId: string;
  now: Date;
}

/** The HTTP response a function's result turns into. */
export interface MappedResponse {
  statusCode: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

/** Bodies with these media types reach the function as text; everything else as base64, as API Gateway does. */
const TEXT_MEDIA_TYPE = /^(?:text\/[^;]+|application\/(?:[\w.+-]+\+)?(?:json|xml)|application\/javascript)$/i;

function isTextContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const mediaType = contentType.split(';')[0]?.trim() ?? '';
  return TEXT_MEDIA_TYPE.test(mediaType);
}

/**
 * Builds the HTTP API payload 2.0 event API Gateway would send for this request.
 * @internal test/local/http-adapter.test.ts checks the event field by field, no server needed.
 */
export function buildHttpApiEvent(request: RawHttpRequest): APIGatewayProxyEventV2 {
  const { rawPath, rawQueryString } = splitUrl(request.url);
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
    const name = (request.rawHeaders[i] ?? '').toLowerCase();
    const value = request.rawHeaders[i + 1] ?? '';
    if (name === 'cookie') {
      // Format 2.0 moves cookies out of the headers into their own array, one per cookie.
      for (const cookie of value.split(';')) if (cookie.trim() !== '') cookies.push(cookie.trim());
      continue;
    }
    headers[name] = name in headers ? `${headers[name]},${value}` : value;
  }
  const queryStringParameters = parseQuery(rawQueryString);
  const host = headers.host ?? 'localhost';
  const domainName = host.replace(/:\d+$/, '');
  const hasBody = request.body.length > 0;
  const base64 = hasBody && !isTextContentType(headers['content-type']);
  const key =
    request.route === undefined
      ? DEFAULT_ROUTE_KEY
      : routeKey({ method: request.method as HttpMethod, path: request.route.path });

  return {
    version: '2.0',
    routeKey: key,
    rawPath,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(queryStringParameters === undefined ? {} : { queryStringParameters }),
    ...(Object.keys(request.pathParameters).length > 0 ? { pathParameters: request.pathParameters } : {}),
    requestContext: {
      accountId: 'anonymous',
      apiId: 'local',
      domainName,
      domainPrefix: domainName.split('.')[0] ?? domainName,
      http: {
        method: request.method,
        path: rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: request.requestId,
      routeKey: key,
      stage: '$default',
      time: formatRequestTime(request.now),
      timeEpoch: request.now.getTime(),
    },
    ...(hasBody ? { body: request.body.toString(base64 ? 'base64' : 'utf8') } : {}),
    isBase64Encoded: base64,
  };
}

/** Whether Lambda would refuse this event as its invocation payload (over 6 MB as JSON). */
export function exceedsInvocationLimit(event: APIGatewayProxyEventV2): boolean {
  return Buffer.byteLength(JSON.stringify(event), 'utf8') > INVOCATION_PAYLOAD_LIMIT_BYTES;
}

/**
 * Turns a function's result into an HTTP response the way API Gateway reads payload 2.0
 * results: an object with `statusCode` is a structured result; anything else (a string, an
 * object without `statusCode`) is a 200 with that value as a JSON body.
 * @internal test/local/http-adapter.test.ts maps handler results without a server.
 */
export function mapHttpApiResult(result: unknown): MappedResponse {
  if (!isStructuredResult(result)) {
    const body = typeof result === 'string' ? result : (JSON.stringify(result) ?? 'null');
    return withLength(200, { 'content-type': 'application/json' }, Buffer.from(body, 'utf8'));
  }
  const headers: OutgoingHttpHeaders = {};
  const setHeader = (name: string, values: string[]) => {
    const key = name.toLowerCase();
    const existing = headers[key];
    const merged =
      existing === undefined
        ? values
        : [...(Array.isArray(existing) ? existing : [String(existing)]), ...values];
    headers[key] = merged.length === 1 ? merged[0] : merged;
  };
  for (const [name, value] of Object.entries(result.headers ?? {})) setHeader(name, [String(value)]);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {}))
    setHeader(name, values.map(String));
  if (result.cookies !== undefined && result.cookies.length > 0) setHeader('set-cookie', result.cookies);
  const text = result.body ?? '';
  const body = result.isBase64Encoded === true ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
  return withLength(result.statusCode, headers, body);
}

interface StructuredResult extends Omit<HttpResult, 'body' | 'headers'> {
  headers?: Record<string, string | number | boolean>;
  multiValueHeaders?: Record<string, Array<string | number | boolean>>;
  body?: string;
}

function isStructuredResult(result: unknown): result is StructuredResult {
  return (
    typeof result === 'object' &&
    result !== null &&
    typeof (result as { statusCode?: unknown }).statusCode === 'number'
  );
}

/** A response with its `content-length`, as API Gateway sends every answer. */
export function withLength(statusCode: number, headers: OutgoingHttpHeaders, body: Buffer): MappedResponse {
  return { statusCode, headers: { ...headers, 'content-length': String(body.length) }, body };
}

/** `rawPath` and `rawQueryString` of a request target, both as sent. */
export function splitUrl(url: string): { rawPath: string; rawQueryString: string } {
  const question = url.indexOf('?');
  return question === -1
    ? { rawPath: url, rawQueryString: '' }
    : { rawPath: url.slice(0, question), rawQueryString: url.slice(question + 1) };
}

/** Decoded parameters, repeated names joined with commas as format 2.0 does; `undefined` when there are none. */
function parseQuery(rawQueryString: string): Record<string, string> | undefined {
  if (rawQueryString === '') return undefined;
  const parameters: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    parameters[name] = name in parameters ? `${parameters[name]},${value}` : value;
  }
  return Object.keys(parameters).length > 0 ? parameters : undefined;
}

/** The caller's address as API Gateway reports it: IPv4-mapped IPv6 addresses as plain IPv4. */
export function normalizeIp(address: string | undefined): string {
  if (address === undefined) return '127.0.0.1';
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** API Gateway's `requestContext.time`: `12/Mar/2020:19:03:58 +0000`. */
function formatRequestTime(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${two(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`
  );
}
