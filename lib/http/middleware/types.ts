import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { HttpResult } from '../responses';

/** The caller an API key belongs to. Deliberately no key material, not even its hash. */
export interface AuthenticatedKey {
  id: string;
  owner: string;
}

/**
 * What the request log line reports beyond status and timing. Middlewares and handlers fill
 * it in as they learn things; only these fields are ever logged, so nothing else can leak.
 */
export interface RequestFacts {
  keyId?: string;
  /** The user an access token belongs to (its `sub`), on the user routes. */
  user?: string;
  /**
   * The host (and port, when not the scheme's own) of the URL connect was asked to fetch or a
   * refresh fetches again, never its path, query or user info: an operator can see who made the
   * service fetch from where.
   */
  fetchedHost?: string;
  /** The other hosts its redirects led to, in order, each once (as `fetchedHost`), a refused one too. */
  redirectedTo?: string[];
  mode?: string;
  ticks?: number;
  /** An engine request that compares a scenario with its baseline. */
  compare?: true;
  /** An engine request that runs a stored system (`systemId`), not a structure it sent. */
  stored?: true;
  nodeCount?: number;
  dependencyCount?: number;
  errorCode?: string;
}

/**
 * The Lambda context as our middlewares extend it (middy's convention: middlewares hang
 * what they learn on `request.context`, and the handler reads it from its `context` argument).
 */
export interface HttpContext extends Context {
  apiKey?: AuthenticatedKey;
  /** The user a verified access token belongs to (routes with user-token auth). */
  user?: { sub: string };
  facts?: RequestFacts;
  /** The function's remaining time as the invocation began (`getRemainingTimeInMillis`), ms. */
  timeLimitMs?: number;
}

/** An HTTP API v2 event; after `jsonBody`, `body` holds the parsed JSON value instead of text. */
export type HttpEvent = Omit<APIGatewayProxyEventV2, 'body'> & { body?: unknown };

export type HttpRequest = middy.Request<HttpEvent, HttpResult | undefined, unknown, HttpContext>;

export type HttpMiddleware = middy.MiddlewareObj<HttpEvent, HttpResult | undefined, unknown, HttpContext>;

/** The request's facts record, created on first use so each middleware also works on its own. */
export function requestFacts(request: Pick<HttpRequest, 'context'>): RequestFacts {
  request.context.facts ??= {};
  return request.context.facts;
}

/** API Gateway's request id, falling back to Lambda's when the event has none (direct invokes). */
export function requestIdOf(request: Pick<HttpRequest, 'event' | 'context'>): string | undefined {
  return request.event?.requestContext?.requestId ?? request.context?.awsRequestId;
}

/**
 * A request header by lower-case name. The header normalizer lower-cases names first; the
 * case-insensitive fallback keeps each middleware correct when used without it.
 */
export function readHeader(event: Pick<HttpEvent, 'headers'> | undefined, name: string): string | undefined {
  const headers = event?.headers;
  if (!headers) return undefined;
  const exact = headers[name];
  if (exact !== undefined) return exact;
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() === name) return headers[key];
  }
  return undefined;
}
