import type { Logger } from '@aws-lambda-powertools/logger';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import { parseEngineRequest } from '../../lib/api/engine-request';
import { renderEngineResponse } from '../../lib/api/engine-response';
import type { Limits } from '../../lib/config/limits';
import {
  apiKeyAuth,
  errorResponse,
  type HttpContext,
  type HttpEvent,
  jsonBody,
  requestFacts,
  requestLog,
  responseEncoding,
  responseHeaders,
  type VerifyApiKey,
} from '../../lib/http/middleware';
import { type HttpResult, jsonTextResult } from '../../lib/http/responses';

export interface EngineHandlerDeps {
  verifyApiKey: VerifyApiKey;
  limits: Limits;
  logger: Logger;
}

/**
 * `POST /api/engine` as a middy handler (HTTP API payload 2.0 in and out). The middlewares
 * apply the contract's checks in its order: Authorization header (1), key (2), body size (3),
 * JSON (4); the handler then parses the request (4-8) and runs the engine (9).
 */
export function createEngineHandler(deps: EngineHandlerDeps) {
  const { verifyApiKey, limits, logger } = deps;

  const runEngineRequest = (event: HttpEvent, context: HttpContext): HttpResult => {
    const request = parseEngineRequest(event.body, limits);
    Object.assign(requestFacts({ context }), {
      mode: request.mode,
      ...(request.mode === 'ticks' ? { ticks: request.ticks } : {}),
      nodeCount: request.structure.nodeCount,
      dependencyCount: request.structure.dependencyCount,
    });
    return jsonTextResult(200, renderEngineResponse(request));
  };

  // middy runs `before` in the order given and `after`/`onError` in reverse, so: the request
  // log wraps everything, errors are answered inside it, compression sees only successes.
  return middy<HttpEvent, HttpResult, unknown, HttpContext>(runEngineRequest)
    .use(httpHeaderNormalizer())
    .use(requestLog({ logger }))
    .use(responseHeaders())
    .use(errorResponse({ logger }))
    .use(responseEncoding({ maxBytes: limits.maxResponseBytes }))
    .use(apiKeyAuth({ verify: verifyApiKey }))
    .use(jsonBody({ maxBytes: limits.maxBodyBytes, maxDecodedBytes: limits.maxDecodedBodyBytes }));
}
