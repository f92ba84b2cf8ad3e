export { type ApiKeyAuthOptions, apiKeyAuth, type VerifyApiKey } from './api-key-auth';
export { type ErrorResponseOptions, errorResponse } from './error-response';
export { type JsonBodyOptions, jsonBody } from './json-body';
export { type RequestLogOptions, requestLog } from './request-log';
export {
  type ContentCoding,
  chooseContentCoding,
  parseAcceptEncoding,
  type ResponseEncodingOptions,
  responseEncoding,
} from './response-encoding';
export {
  type AuthenticatedKey,
  type HttpContext,
  type HttpEvent,
  type HttpMiddleware,
  type HttpRequest,
  type RequestFacts,
  readHeader,
  requestFacts,
  requestIdOf,
} from './types';
