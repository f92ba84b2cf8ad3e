import type { HttpMiddleware, HttpRequest } from './types';

/**
 * Headers every API response carries, success or error: the body is JSON and must never be
 * sniffed as anything else, and answers are per caller and per request, so nothing may
 * cache them unless a handler says otherwise (the OpenAPI document does).
 */
export const API_RESPONSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
});

/** Adds `API_RESPONSE_HEADERS` to the response, keeping any the handler set itself. */
export function responseHeaders(): HttpMiddleware {
  const addResponseHeaders = (request: HttpRequest): void => {
    const response = request.response;
    if (response === undefined || response === null) return;
    response.headers = { ...API_RESPONSE_HEADERS, ...response.headers };
  };
  return { after: addResponseHeaders, onError: addResponseHeaders };
}
