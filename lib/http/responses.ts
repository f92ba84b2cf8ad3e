import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type ApiError, errorBody } from '../api/errors';

/** Every JSON response carries this, success or error. */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** An HTTP API (payload 2.0) result whose body is always a string and whose headers are always set. */
export interface HttpResult extends APIGatewayProxyStructuredResultV2 {
  statusCode: number;
  headers: Record<string, string | number | boolean>;
  body: string;
}

/** A result whose body is the given text, already serialized as JSON. */
export function jsonTextResult(
  statusCode: number,
  json: string,
  headers: Record<string, string> = {},
): HttpResult {
  return {
    statusCode,
    headers: { ...headers, 'content-type': JSON_CONTENT_TYPE },
    body: json,
    isBase64Encoded: false,
  };
}

/**
 * The one function that turns an `ApiError` into what the caller receives. The error
 * middleware uses it, and so does the local server for the 404/405 that API Gateway would
 * answer before any function runs.
 */
export function errorResult(error: ApiError): HttpResult {
  return jsonTextResult(error.status, JSON.stringify(errorBody(error)), error.headers ?? {});
}
