import type { Logger } from '@aws-lambda-powertools/logger';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import { buildOpenApiDocument } from '../../lib/api/openapi';
import type { Limits } from '../../lib/config/limits';
import {
  errorResponse,
  type HttpContext,
  type HttpEvent,
  requestLog,
  responseEncoding,
  responseHeaders,
} from '../../lib/http/middleware';
import { type HttpResult, jsonTextResult } from '../../lib/http/responses';

/**
 * `GET /api/openapi.json` (and HEAD): the OpenAPI document, public, compressed when the client
 * allows. It is fixed for the life of the deployment, so it is built and serialized once.
 */
export function createOpenApiHandler(deps: { limits: Limits; logger: Logger }) {
  const { limits, logger } = deps;
  const documentJson = JSON.stringify(buildOpenApiDocument());
  const serveOpenApiDocument = (): HttpResult =>
    jsonTextResult(200, documentJson, { 'cache-control': 'public, max-age=300' });

  return middy<HttpEvent, HttpResult, unknown, HttpContext>(serveOpenApiDocument)
    .use(httpHeaderNormalizer())
    .use(requestLog({ logger }))
    .use(responseHeaders())
    .use(errorResponse({ logger }))
    .use(responseEncoding({ maxBytes: limits.maxResponseBytes }));
}
