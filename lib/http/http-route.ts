/**
 * The one HTTP stack: every route of every function, and the answers to requests no route takes,
 * are the same middy chain, built here and nowhere else. Its order is the contract's:
 *
 *   before:  header names lower-cased → request log starts → auth (checks 1-2) → JSON body (3-4)
 *   handler: the route's own code (a use case, its result mapped to HTTP)
 *   after:   response encoding (compression, the 413 of check 8) → response headers → log line
 *   onError: error response (the one place an error becomes an answer) → response headers → log line
 *
 * middy runs `before` in the order the middlewares are given and `after`/`onError` in reverse,
 * so: the request log wraps everything, errors are answered inside it, compression sees only
 * successes.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { IsUnavailable } from '../api/errors';
import {
  apiKeyAuth,
  errorResponse,
  type HttpContext,
  type HttpEvent,
  type JsonBodyOptions,
  jsonBody,
  type RequestFacts,
  requestFacts,
  requestLog,
  responseEncoding,
  responseHeaders,
  userTokenAuth,
  type VerifyApiKey,
  type VerifyUserToken,
} from './middleware';
import type { HttpResult } from './responses';
import type { RouteAuth } from './routes';

/** A Lambda handler for HTTP API (payload 2.0) events. */
export type HttpLambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

/** What every route of a function shares: its logger and the credential checks it needs. */
export interface HttpStack {
  logger: Logger;
  /** Needed by routes with `apiKey` auth. */
  verifyApiKey?: VerifyApiKey;
  /** Needed by routes with `userToken` auth. */
  verifyUserToken?: VerifyUserToken;
  /**
   * Recognises the storage's faults (the functions pass `isStoreUnavailable`), answered 503
   * SERVICE_UNAVAILABLE with Retry-After wherever they happen: the key check or a use case.
   */
  isUnavailable?: IsUnavailable;
}

/** What a route's code receives once the stack has checked the request. */
export interface RouteRequest {
  event: HttpEvent;
  /** The parsed JSON body (routes with `body`), else `undefined`. */
  body: unknown;
  /** The user the request acts for: the API key's owner or the access token's `sub`. */
  owner: string | undefined;
  /** Path parameters as API Gateway decoded them. */
  pathParameters: Readonly<Record<string, string | undefined>>;
  /** Query string parameters, repeated names joined by commas. */
  query: Readonly<Record<string, string | undefined>>;
  /** What the request log reports; a route adds what it learns (mode, counts). */
  facts: RequestFacts;
  /**
   * Milliseconds left before the function times out (Lambda's clock), or `undefined` when the
   * invocation has no such clock.
   */
  remainingTimeMs: (() => number) | undefined;
  /** The function's time for this request: what remained as the invocation began, ms. */
  timeLimitMs: number | undefined;
}

export interface RouteOptions {
  /** How the caller authenticates: the route table's `auth`. */
  auth: RouteAuth;
  /** The body is JSON to parse, within these sizes (on the wire, and once decompressed). */
  body?: JsonBodyOptions;
  /**
   * Successful answers are compressed when the client allows, and must fit `maxBytes` (else 413,
   * with the route's `advice`: see `ResponseEncodingOptions`).
   */
  encode?: { maxBytes: number; advice?: string };
  handler: (request: RouteRequest) => Promise<HttpResult> | HttpResult;
}

/**
 * A route's handler: its middy chain, in the contract's order. The chain is built at the route's
 * first request, so a cold start builds only the chains of the routes it serves (a function
 * serves up to ten, and building them all was about a millisecond of the connect function's
 * cold start); what the chain needs from the stack is checked now, so a wiring mistake still
 * stops the cold start.
 */
export function httpRoute(stack: HttpStack, options: RouteOptions): HttpLambdaHandler {
  const verifyApiKey = options.auth === 'apiKey' ? required(stack.verifyApiKey, 'verifyApiKey') : undefined;
  const verifyUserToken =
    options.auth === 'userToken' ? required(stack.verifyUserToken, 'verifyUserToken') : undefined;
  let chain: HttpLambdaHandler | undefined;
  return (event, context) => {
    chain ??= buildChain(stack, options, verifyApiKey, verifyUserToken);
    // Before any middleware: the time a large body's decoding and parsing take counts too.
    if (typeof context.getRemainingTimeInMillis === 'function') {
      (context as HttpContext).timeLimitMs = context.getRemainingTimeInMillis();
    }
    return chain(event, context);
  };
}

function buildChain(
  stack: HttpStack,
  options: RouteOptions,
  verifyApiKey: VerifyApiKey | undefined,
  verifyUserToken: VerifyUserToken | undefined,
): HttpLambdaHandler {
  const { logger } = stack;
  const run = (event: HttpEvent, context: HttpContext) =>
    options.handler({
      event,
      body: options.body === undefined ? undefined : event.body,
      owner: context.apiKey?.owner ?? context.user?.sub,
      pathParameters: event.pathParameters ?? {},
      query: event.queryStringParameters ?? {},
      facts: requestFacts({ context }),
      remainingTimeMs:
        typeof context.getRemainingTimeInMillis === 'function'
          ? () => context.getRemainingTimeInMillis()
          : undefined,
      timeLimitMs: context.timeLimitMs,
    });

  const chain = middy<HttpEvent, HttpResult, unknown, HttpContext>(run)
    .use(httpHeaderNormalizer())
    .use(requestLog({ logger }))
    .use(responseHeaders())
    .use(errorResponse({ logger, isUnavailable: stack.isUnavailable }));
  if (options.encode !== undefined) chain.use(responseEncoding(options.encode));
  if (verifyApiKey !== undefined) chain.use(apiKeyAuth({ verify: verifyApiKey }));
  if (verifyUserToken !== undefined) chain.use(userTokenAuth({ verify: verifyUserToken }));
  if (options.body !== undefined) chain.use(jsonBody(options.body));
  return chain as unknown as HttpLambdaHandler;
}

function required<T>(value: T | undefined, name: string): T {
  // A wiring mistake: found when the function loads, never at request time.
  if (value === undefined) throw new Error(`a route with this auth needs ${name} in its HTTP stack`);
  return value;
}
