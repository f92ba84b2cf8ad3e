import type { Logger } from '@aws-lambda-powertools/logger';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import { type EngineRequest, locateStructure, parseEngineRequest } from '../../lib/api/engine-request';
import { renderEngineResponse } from '../../lib/api/engine-response';
import { ApiError, SYSTEM_NOT_FOUND_DETAIL, SYSTEM_NOT_FOUND_MESSAGE } from '../../lib/api/errors';
import type { Limits } from '../../lib/config/limits';
import { isRecord } from '../../lib/engine';
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
import type { CompiledStructureCache, SystemStore } from '../../lib/systems';

export interface EngineHandlerDeps {
  verifyApiKey: VerifyApiKey;
  limits: Limits;
  logger: Logger;
  /** Where `{ mode, systemId }` requests find their structure. */
  systems: Pick<SystemStore, 'get' | 'getRecord'>;
  /** Compiled stored systems kept by this instance; none when absent. */
  systemCache?: CompiledStructureCache;
}

/** A parsed engine request, with the SHA-256 of the stored structure it runs on, if any. */
interface ParsedRequest {
  request: EngineRequest;
  storedSha256?: string;
}

/**
 * `POST /api/engine` as a middy handler (HTTP API payload 2.0 in and out). The middlewares
 * apply the contract's checks in its order: Authorization header (1), key (2), body size (3),
 * JSON (4); the handler then parses the request (4-8) and runs the engine (9).
 */
export function createEngineHandler(deps: EngineHandlerDeps) {
  const { verifyApiKey, limits, logger, systems, systemCache } = deps;
  const notFound = () =>
    new ApiError('SYSTEM_NOT_FOUND', SYSTEM_NOT_FOUND_MESSAGE, {
      details: [{ path: 'systemId', message: SYSTEM_NOT_FOUND_DETAIL }],
    });

  /**
   * `{ mode, ticks?, systemId }` (and no structure in the body) runs on a stored system of the
   * key's owner: the body is completed with the stored arrays and parsed like any other, so the
   * answer is byte for byte the one the structure sent inline would get. Mode and ticks are
   * checked first (contract order); a system that is not the owner's is 404, never 403.
   *
   * With a cache, the owner's record is read first (a small read) and a structure this instance
   * compiled before, by the record's SHA-256, is used as it is; otherwise the structure is read.
   */
  const parseRequest = async (body: unknown, owner: string): Promise<ParsedRequest> => {
    if (!isRecord(body) || !Object.hasOwn(body, 'systemId') || locateStructure(body) !== undefined) {
      return { request: parseEngineRequest(body, limits) };
    }
    parseEngineRequest({ ...body, nodes: [], dependencies: [] }, limits);
    const id = body.systemId;
    if (typeof id !== 'string') throw notFound();
    const { systemId: _systemId, ...envelope } = body;
    if (systemCache !== undefined) {
      const record = await systems.getRecord(owner, id);
      if (record === undefined) throw notFound();
      const compiled = systemCache.get(record.sha256);
      if (compiled !== undefined) {
        const { nodes, dependencies } = compiled;
        const request = parseEngineRequest({ ...envelope, nodes, dependencies }, limits, { compiled });
        return { request, storedSha256: record.sha256 };
      }
    }
    const stored = await systems.get(owner, id);
    if (stored === undefined) throw notFound();
    const request = parseEngineRequest(
      { ...envelope, nodes: stored.structure.nodes, dependencies: stored.structure.dependencies },
      limits,
    );
    systemCache?.set(stored.record.sha256, request.structure);
    return { request, storedSha256: stored.record.sha256 };
  };

  /** A stored system's answer is kept beside its structure, so an exact repeat is not recomputed. */
  const render = (request: EngineRequest, storedSha256: string | undefined): string => {
    if (systemCache === undefined || storedSha256 === undefined) return renderEngineResponse(request);
    const key = request.mode === 'ticks' ? `ticks ${request.ticks}` : request.mode;
    return systemCache.answer(storedSha256, key, () => renderEngineResponse(request));
  };

  const runEngineRequest = async (event: HttpEvent, context: HttpContext): Promise<HttpResult> => {
    const { request, storedSha256 } = await parseRequest(event.body, context.apiKey!.owner);
    Object.assign(requestFacts({ context }), {
      mode: request.mode,
      ...(request.mode === 'ticks' ? { ticks: request.ticks } : {}),
      nodeCount: request.structure.nodeCount,
      dependencyCount: request.structure.dependencyCount,
    });
    return jsonTextResult(200, render(request, storedSha256));
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
