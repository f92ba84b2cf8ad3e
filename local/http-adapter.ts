/**
 * A `node:http` front for Lambda handlers that behaves like API Gateway HTTP API with payload
 * format 2.0: it builds the same events and reads results the same way (both in
 * local/http-api-event.ts), and answers unknown routes itself, or hands them to a `$default`
 * function as the deployed API does. Used by the local server and by the deploy rehearsal, which
 * puts the synthesized bundles behind it; no AWS involved.
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
import {
  DEFAULT_ROUTE_FUNCTION,
  FUNCTIONS,
  type FunctionName,
  matchRoute,
  type RouteDefinition,
  routeKey,
} from '../lib/http/routes';
import { unmatchedRouteError } from '../lib/http/unmatched-route';
import { withVary } from '../lib/http/vary';
import { ClientGoneError, PoolFullError, PoolStoppingError, waitingText } from './handler-pool';
import {
  buildHttpApiEvent,
  DEFAULT_ROUTE_KEY,
  exceedsInvocationLimit,
  type MappedResponse,
  mapHttpApiResult,
  normalizeIp,
  splitUrl,
  withLength,
} from './http-api-event';

/**
 * A Lambda handler as the adapter calls it. `signal` aborts when the client goes away before its
 * answer: a handler that waits for a worker (`local/handler-pool.ts`) then drops the request;
 * Lambda's own handlers ignore it.
 */
export type HttpApiHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
  signal?: AbortSignal,
) => unknown;

export interface LoadedRoute extends RouteDefinition {
  handler: HttpApiHandler;
}

export interface HttpAdapterOptions {
  routes: readonly LoadedRoute[];
  /** True once the server is stopping: answers then close their connections. */
  stopping?: () => boolean;
  /**
   * The handlers' request body limit. The adapter keeps at most one byte more than this and
   * discards the rest, so memory stays bounded while the handler can still see "too large"
   * and answer 413 in its own order (after the API key checks).
   */
  maxBodyBytes: number;
  /**
   * Lambda's timeout, reported through `context.getRemainingTimeInMillis`, for every function.
   * Default: each route's function's own (`FUNCTIONS` in lib/http/routes.ts), as deployed.
   */
  timeoutMs?: number;
  /** Told about a handler that threw or rejected (API Gateway would answer 500). Default: stderr. */
  onHandlerError?: (error: unknown, route: RouteDefinition | undefined) => void;
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
  /**
   * The function behind API Gateway's `$default` route. When given, a request no route takes is
   * sent to it (route key `$default`), as the deployed API does; when absent the adapter answers
   * it itself with the same 404 or 405.
   */
  defaultRoute?: HttpApiHandler;
  /**
   * Refuse, as API Gateway does, an event larger than Lambda's invocation payload limit (6 MB as
   * JSON) with its own 413 instead of calling the function. Off by default: the local server
   * lets the function's own body limit (`MAX_BODY_BYTES`) answer, with the service's error body.
   */
  enforceInvocationLimit?: boolean;
}

/** API Gateway's own answer when the event would exceed Lambda's payload limit: not the service's error body. */
const GATEWAY_PAYLOAD_TOO_LARGE = withLength(
  413,
  { 'content-type': 'application/json' },
  Buffer.from('{"message":"Request Entity Too Large"}', 'utf8'),
);

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

/** A request listener that routes by the route table and runs the matching handler. */
export function createHttpAdapter(options: HttpAdapterOptions): RequestListener {
  const timeoutOf = (fn: FunctionName) => options.timeoutMs ?? FUNCTIONS[fn].timeoutSeconds * 1000;
  const onHandlerError =
    options.onHandlerError ??
    ((error: unknown, route: RouteDefinition | undefined) => {
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      const key = route === undefined ? DEFAULT_ROUTE_KEY : routeKey(route);
      process.stderr.write(`local server: handler for ${key} failed: ${reason}\n`);
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
    /** The request line of a request no handler logged: the adapter answered it itself. */
    const writeLine = (requestId: string, route: string | undefined, status: number, errorCode?: string) => {
      if (options.logger === undefined) return;
      logRequestLine(options.logger, {
        requestId,
        route,
        status,
        errorCode,
        durationMs: performance.now() - started,
      });
    };
    const answerItself = (response: MappedResponse, route: string | undefined, errorCode?: string) => {
      req.resume();
      send(res, withCors(response, origin, options.cors));
      writeLine(randomUUID(), route, response.statusCode, errorCode);
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
    if (match.kind !== 'found' && options.defaultRoute === undefined) {
      const error = unmatchedRouteError(options.routes, method, rawPath);
      answerItself(mapHttpApiResult(gatewayResult(error)), undefined, error.code);
      return;
    }
    const route = match.kind === 'found' ? match.route : undefined;
    const handler = match.kind === 'found' ? match.route.handler : options.defaultRoute!;

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
      route,
      pathParameters: match.kind === 'found' ? match.pathParameters : {},
      requestId,
      now,
    });
    if (options.enforceInvocationLimit === true && exceedsInvocationLimit(event)) {
      send(
        res,
        withCors(
          {
            ...GATEWAY_PAYLOAD_TOO_LARGE,
            headers: { ...GATEWAY_PAYLOAD_TOO_LARGE.headers, connection: 'close' },
          },
          origin,
          options.cors,
        ),
      );
      return;
    }
    // A client that gives up (closes its connection before the answer) takes its request back
    // from the queue of a busy pool, as no Lambda would run it either.
    const clientGone = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) clientGone.abort();
    };
    res.once('close', onClose);
    let result: unknown;
    try {
      const timeoutMs = timeoutOf(route?.function ?? DEFAULT_ROUTE_FUNCTION);
      result = await handler(
        event,
        lambdaContext(route?.name ?? 'default', requestId, now, timeoutMs),
        clientGone.signal,
      );
    } catch (error) {
      const key = route === undefined ? undefined : routeKey(route);
      if (error instanceof ClientGoneError) {
        // Taken back from the queue, never run: no handler wrote its line, and no answer goes to
        // a client that has gone. 499, nginx's "client closed request", so an operator sees it.
        writeLine(requestId, key, 499);
        return;
      }
      const notRun = poolRefusal(error);
      if (notRun === undefined) onHandlerError(error, route);
      const refusal =
        notRun ??
        new ApiError(
          'INTERNAL_ERROR',
          'The function failed while handling this request; see the server log.',
        );
      result = gatewayResult(refusal);
      // No handler wrote this request's line (none ran it, or its worker ended): written here.
      writeLine(requestId, key, refusal.status, refusal.code);
      if (clientGone.signal.aborted) return; // logged; there is no one to answer
    }
    const response = withCors(mapHttpApiResult(result), origin, options.cors);
    // The rest of an oversized upload is read and dropped, never kept; the client is told
    // not to send another request on this connection.
    // So is a client answered while the server stops: its connection closes once the answer is out.
    if (received.truncated || options.stopping?.() === true) response.headers.connection = 'close';
    send(res, response);
  }
}

/**
 * The 503 of a request a pool did not run, to be tried again: past its workers and its queue, as
 * Lambda past its concurrency, or while the server stops. `undefined` for any other failure.
 */
function poolRefusal(error: unknown): ApiError | undefined {
  const again = { headers: { 'retry-after': '2' } };
  if (error instanceof PoolFullError) {
    return new ApiError(
      'SERVICE_UNAVAILABLE',
      `Every ${error.functionName} worker of the local server is busy and ${waitingText(error.waiting)}; try again in 2 seconds.`,
      again,
    );
  }
  if (error instanceof PoolStoppingError)
    return new ApiError(
      'SERVICE_UNAVAILABLE',
      'The local server is stopping; try again in 2 seconds.',
      again,
    );
  return undefined;
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
function withCors(
  response: MappedResponse,
  origin: string | undefined,
  cors: CorsSettings | undefined,
): MappedResponse {
  if (cors === undefined) return response;
  // With or without the origin header: a cache must not serve an answer made for one origin (or
  // none) to another.
  const vary = withVary(response.headers.vary, 'Origin');
  if (origin === undefined) return { ...response, headers: { ...response.headers, vary } };
  return {
    ...response,
    headers: {
      ...response.headers,
      'access-control-allow-origin': origin,
      'access-control-expose-headers': cors.exposeHeaders.join(', '),
      vary,
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

function lambdaContext(routeName: string, requestId: string, now: Date, timeoutMs: number): Context {
  const deadline = now.getTime() + timeoutMs;
  const functionName = `sbe-local-${routeName}`;
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
