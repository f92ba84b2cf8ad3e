import { parseJsonRequestBody } from '../../api/request-body';
import type { HttpMiddleware, HttpRequest } from './types';
import { readHeader } from './types';

export interface JsonBodyOptions {
  /** Largest body on the wire, in bytes (a base64 event body is measured after base64 decoding). */
  maxBytes: number;
  /** Largest body once its Content-Encoding (gzip, br, deflate) is undone. */
  maxDecodedBytes: number;
  /** A user route's body in words: a body that is not JSON is then a 400 saying so (`parseJsonRequestBody`). */
  expects?: string;
  /** What an empty body stands for, on a route whose fields are all optional. */
  empty?: unknown;
  /** The most JSON objects and arrays the body may hold (`RequestBodyOptions.maxContainers`). */
  maxContainers?: (textLength: number) => number;
}

/**
 * Contract checks 3 and 4 (size, then JSON syntax). Replaces `event.body` with the parsed value.
 *
 * No Content-Type is required: the only thing this route accepts is JSON, and API Gateway
 * already base64-encodes bodies whose Content-Type is missing or not text (curl's default
 * `-d` sends `application/x-www-form-urlencoded`), so both forms are decoded here instead of
 * being refused with 415. A compressed body (`Content-Encoding`) is decompressed first.
 */
export function jsonBody(options: JsonBodyOptions): HttpMiddleware {
  const jsonBodyBefore = (request: HttpRequest): void => {
    const { body, isBase64Encoded } = request.event;
    if (body !== undefined && body !== null && typeof body !== 'string') {
      throw new TypeError('jsonBody expects the raw event body as a string');
    }
    request.event.body = parseJsonRequestBody(body, {
      maxBytes: options.maxBytes,
      maxDecodedBytes: options.maxDecodedBytes,
      isBase64Encoded: isBase64Encoded === true,
      contentEncoding: readHeader(request.event, 'content-encoding'),
      ...(options.expects === undefined ? {} : { expects: options.expects }),
      ...(options.empty === undefined ? {} : { empty: options.empty }),
      ...(options.maxContainers === undefined ? {} : { maxContainers: options.maxContainers }),
    });
    request.event.isBase64Encoded = false;
  };

  return { before: jsonBodyBefore };
}
