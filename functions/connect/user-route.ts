import type { Logger } from '@aws-lambda-powertools/logger';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import {
  errorResponse,
  type HttpContext,
  type HttpEvent,
  jsonBody,
  requestLog,
  responseHeaders,
  userTokenAuth,
  type VerifyUserToken,
} from '../../lib/http/middleware';
import type { HttpResult } from '../../lib/http/responses';

export interface UserRouteDeps {
  verifyUserToken: VerifyUserToken;
  logger: Logger;
}

/** Request bodies of the user routes are small (a name, a URL, a token): 64 KiB is plenty. */
const USER_ROUTE_MAX_BODY_BYTES = 64 * 1024;

/** The handler of a user route: the verified user's `sub`, the parsed body (if any), the event. */
export type UserRouteHandler = (input: {
  sub: string;
  body: unknown;
  event: HttpEvent;
}) => Promise<HttpResult> | HttpResult;

/**
 * Wraps a user route once with middy, in the same order as the engine route: log, headers,
 * errors, then the token (401 before anything else), then the JSON body when the route takes one.
 */
export function userRoute(deps: UserRouteDeps, handle: UserRouteHandler, options: { body: boolean }) {
  const run = (event: HttpEvent, context: HttpContext) =>
    handle({ sub: context.user!.sub, body: event.body, event });
  const chain = middy<HttpEvent, HttpResult, unknown, HttpContext>(run)
    .use(httpHeaderNormalizer())
    .use(requestLog({ logger: deps.logger }))
    .use(responseHeaders())
    .use(errorResponse({ logger: deps.logger }))
    .use(userTokenAuth({ verify: deps.verifyUserToken }));
  return options.body
    ? chain.use(jsonBody({ maxBytes: USER_ROUTE_MAX_BODY_BYTES, maxDecodedBytes: USER_ROUTE_MAX_BODY_BYTES }))
    : chain;
}
