/**
 * A `node:http` front for Lambda handlers that behaves like API Gateway HTTP API with payload
 * format 2.0: it builds the same events, reads results the same way, and answers unknown
 * routes itself. Used by the local server; no AWS involved.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, RequestListener, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { PAGE_CONTENT_SECURITY_POLICY } from '../explorer/page-headers';
import { ApiError } from '../lib/api/errors';
import { allowedOrigin, type CorsSettings, preflightCorsHeaders } from '../lib/http/cors';
import { API_RESPONSE_HEADERS, logRequestLine } from '../lib/http/middleware';
import { errorResult, type HttpResult } from '../lib/http/responses';
import { type HttpMethod, matchRoute, type RouteDefinition, routeKey } from '../lib/http/routes';
import { unmatchedRouteError } from '../lib/http/unmatched-route';

/** A Lambda handler as API Gateway calls it. */
export type HttpApiHandler = (event: APIGatewayProxyEventV2, context: Context) => unknown;

export interface LoadedRoute extends RouteDefinition {
  handler: HttpApiHandler;
}

export interface HttpAdapterOptions {
  routes: readonly LoadedRoute[];
  /**
   * The handlers' request body limit. The adapter keeps at most one byte more than this and
   * discards the rest, so memory stays bounded while the handler can still see "too large"
   * and answer 413 in its own order (after the API key checks).
   */
  maxBodyBytes: number;
  /** Lambda's timeout, reported through `context.getRemainingTimeInMillis`. Default 30 s. */
  timeoutMs?: number;
  /** Told about a handler that threw or rejected (API Gateway would answer 500). Default: stderr. */
  onHandlerError?: (error: unknown, route: RouteDefinition) => void;
  /** Writes the request line for answers the adapter gives itself (404, 405, preflights). */
  logger?: Logger;
  /** Cross-origin settings (`CORS_ALLOW_ORIGINS`); CORS is off when absent. */
  cors?: CorsSettings;
  /**
   * JSON documents served at fixed paths, outside the API: the sample external API that
   * `POST /api/connect` can register on a local run. Not part of any deployment.
   */
  sampleDocuments?: ReadonlyMap<string, string>;
  /** The explorer page's files by path (`/`, `/explorer.js`, …), served to GET and HEAD. */
  pageFiles?: ReadonlyMap<string, PageFile>;
}

/** A static file of the explorer page. */
export interface PageFile {
  contentType: string;
  body: Buffer;
}

/** Sent with every file of the explorer page. */
const PAGE_HEADERS: OutgoingHttpHeaders = {
  'content-security-policy': PAGE_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/** What the adapter needs to know about one HTTP request to build its event. */
export interface RawHttpRequest {
  method: string;
  /** Path and query as sent, e.g. `/api/engine?x=1`. */
  url: string;
  httpVersion: string;
  /** Node's `rawHeaders`: name, value, name, value, … in arrival order. */
  rawHeaders: readonly string[];
  body: Buffer;
  sourceIp: string;
  route: RouteDefinition;
  pathParameters: Record<string, string>;
  requestId: string;
  now: Date;
}

/** The HTTP response a handler's result turns into. */
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

  return {
    version: '2.0',
    routeKey: routeKey({ method: request.method as HttpMethod, path: request.route.path }),
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
      routeKey: routeKey({ method: request.method as HttpMethod, path: request.route.path }),
      stage: '$default',
      time: formatRequestTime(request.now),
      timeEpoch: request.now.getTime(),
    },
    ...(hasBody ? { body: request.body.toString(base64 ? 'base64' : 'utf8') } : {}),
    isBase64Encoded: base64,
  };
}

/**
 * Turns a handler's result into an HTTP response the way API Gateway reads payload 2.0
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

function withLength(statusCode: number, headers: OutgoingHttpHeaders, body: Buffer): MappedResponse {
  return { statusCode, headers: { ...headers, 'content-length': String(body.length) }, body };
}

/** A request listener that routes by the route table and runs the matching handler. */
export function createHttpAdapter(options: HttpAdapterOptions): RequestListener {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const onHandlerError =
    options.onHandlerError ??
    ((error: unknown, route: RouteDefinition) => {
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      process.stderr.write(`local server: handler for ${routeKey(route)} failed: ${reason}\n`);
    });

  return (req, res) => {
    void serve(req, res).catch((error: unknown) => {
      // Only reachable when the response itself could not be written (client gone, bad header).
      process.stderr.write(
        `local server: could not answer: ${error instanceof Error ? error.message : error}\n`,
      );
      res.destroy();
    });
  };

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const method = req.method ?? 'GET';
    const { rawPath } = splitUrl(req.url ?? '/');
    const origin = allowedOrigin(options.cors, singleHeader(req.headers.origin));
    const answerItself = (response: MappedResponse, route: string | undefined, errorCode?: string) => {
      req.resume();
      send(res, withCors(response, origin));
      if (options.logger !== undefined) {
        logRequestLine(options.logger, {
          requestId: randomUUID(),
          route,
          status: response.statusCode,
          errorCode,
          durationMs: performance.now() - started,
        });
      }
    };

    if (method === 'OPTIONS' && options.cors !== undefined && req.headers['access-control-request-method']) {
      const allow = methodsAt(options.routes, rawPath);
      if (allow.length > 0) {
        answerItself(preflight(options.cors, origin, allow), `OPTIONS ${rawPath}`);
        return;
      }
    }

    const sample = options.sampleDocuments?.get(rawPath);
    if (sample !== undefined && (method === 'GET' || method === 'HEAD')) {
      const headers = { 'content-type': 'application/json; charset=utf-8', ...API_RESPONSE_HEADERS };
      answerItself(withLength(200, headers, Buffer.from(sample, 'utf8')), `${method} ${rawPath}`);
      return;
    }

    const pageFile = options.pageFiles?.get(rawPath);
    if (pageFile !== undefined && (method === 'GET' || method === 'HEAD')) {
      const headers = { 'content-type': pageFile.contentType, ...PAGE_HEADERS };
      answerItself(withLength(200, headers, pageFile.body), `${method} ${rawPath}`);
      return;
    }

    const match = matchRoute(options.routes, method, rawPath);
    if (match.kind !== 'found') {
      const error = unmatchedRouteError(options.routes, method, rawPath);
      answerItself(mapHttpApiResult(gatewayResult(error)), undefined, error.code);
      return;
    }

    const received = await readCappedBody(req, options.maxBodyBytes + 1);
    if (received === undefined) return; // the client went away before sending its body
    const now = new Date();
    const requestId = randomUUID();
    const event = buildHttpApiEvent({
      method,
      url: req.url ?? '/',
      httpVersion: req.httpVersion,
      rawHeaders: req.rawHeaders,
      body: received.body,
      sourceIp: normalizeIp(req.socket.remoteAddress),
      route: match.route,
      pathParameters: match.pathParameters,
      requestId,
      now,
    });
    let result: unknown;
    try {
      result = await match.route.handler(event, lambdaContext(match.route, requestId, now, timeoutMs));
    } catch (error) {
      onHandlerError(error, match.route);
      result = gatewayResult(
        new ApiError(
          'INTERNAL_ERROR',
          'The function failed while handling this request; see the server log.',
        ),
      );
    }
    const response = withCors(mapHttpApiResult(result), origin);
    // The rest of an oversized upload is read and dropped, never kept; the client is told
    // not to send another request on this connection.
    if (received.truncated) response.headers.connection = 'close';
    send(res, response);
  }
}

/** An error the "gateway" (this adapter) answers itself, with the headers every API answer has. */
function gatewayResult(error: ApiError): HttpResult {
  const result = errorResult(error);
  return { ...result, headers: { ...API_RESPONSE_HEADERS, ...result.headers } };
}

/** Every method the route table serves at `path`, for a preflight's Allow-Methods. */
function methodsAt(routes: readonly RouteDefinition[], path: string): string[] {
  // No route is declared for OPTIONS, so a known path always answers with its method list.
  const match = matchRoute(routes, 'OPTIONS', path);
  return match.kind === 'method-not-allowed' ? match.allow : [];
}

/**
 * The answer to a CORS preflight, as API Gateway gives it when CORS is configured: 204 with
 * the allowed methods, headers and max age for an allowed origin; 204 without any CORS
 * header for another origin (the browser then refuses the real request).
 */
function preflight(
  settings: CorsSettings,
  origin: string | undefined,
  allow: readonly string[],
): MappedResponse {
  const headers: OutgoingHttpHeaders = {
    ...API_RESPONSE_HEADERS,
    ...preflightCorsHeaders(settings, origin, allow),
  };
  return withLength(204, headers, Buffer.alloc(0));
}

/** Adds `Access-Control-Allow-Origin` for an allowed origin; answers vary by Origin whenever CORS is on. */
function withCors(response: MappedResponse, origin: string | undefined): MappedResponse {
  if (origin === undefined) return response;
  const vary = response.headers.vary;
  return {
    ...response,
    headers: {
      ...response.headers,
      'access-control-allow-origin': origin,
      vary: vary === undefined ? 'Origin' : `${String(vary)}, Origin`,
    },
  };
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function send(res: ServerResponse, response: MappedResponse): void {
  res.writeHead(response.statusCode, response.headers);
  res.end(response.body);
}

/**
 * Keeps the first `cap` bytes and resolves as soon as it has them (or the body ends), so an
 * oversized upload is answered without waiting for the rest, and costs no memory: what
 * follows is read and dropped. `undefined` when the client goes away first.
 */
function readCappedBody(
  req: IncomingMessage,
  cap: number,
): Promise<{ body: Buffer; truncated: boolean } | undefined> {
  return new Promise((resolve) => {
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let settled = false;
    const settle = (value: { body: Buffer; truncated: boolean } | undefined) => {
      if (settled) return;
      settled = true;
      resolve(value);
    };
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      const take = chunk.subarray(0, cap - keptBytes);
      kept.push(take);
      keptBytes += take.length;
      if (keptBytes >= cap) settle({ body: Buffer.concat(kept, keptBytes), truncated: true });
    });
    req.once('end', () => settle({ body: Buffer.concat(kept, keptBytes), truncated: false }));
    req.once('close', () => settle(undefined));
    req.once('error', () => settle(undefined));
  });
}

function lambdaContext(route: RouteDefinition, requestId: string, now: Date, timeoutMs: number): Context {
  const deadline = now.getTime() + timeoutMs;
  const functionName = `sbe-local-${route.name}`;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1769',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function splitUrl(url: string): { rawPath: string; rawQueryString: string } {
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

function normalizeIp(address: string | undefined): string {
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
