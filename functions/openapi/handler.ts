import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import { buildOpenApiDocument } from '../../lib/api/openapi';
import { readLimits } from '../../lib/config/limits';
import {
  errorResponse,
  type HttpContext,
  type HttpEvent,
  requestLog,
  responseEncoding,
  responseHeaders,
} from '../../lib/http/middleware';
import { type HttpResult, jsonTextResult } from '../../lib/http/responses';
import { createLogger } from '../../lib/logging';

const logger = createLogger();
const limits = readLimits();
// The document is fixed for the life of the deployment: build and serialize it once.
const documentJson = JSON.stringify(buildOpenApiDocument());

const serveOpenApiDocument = (): HttpResult =>
  jsonTextResult(200, documentJson, { 'cache-control': 'public, max-age=300' });

/** `GET /api/openapi.json`: the OpenAPI document, public, compressed when the client allows. */
export const handler = middy<HttpEvent, HttpResult, unknown, HttpContext>(serveOpenApiDocument)
  .use(httpHeaderNormalizer())
  .use(requestLog({ logger }))
  .use(responseHeaders())
  .use(errorResponse({ logger }))
  .use(responseEncoding({ maxBytes: limits.maxResponseBytes }));
