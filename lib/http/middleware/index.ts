export { apiKeyAuth, type VerifyApiKey } from './api-key-auth';
export { errorResponse } from './error-response';
export { type JsonBodyOptions, jsonBody } from './json-body';
export { logRequestLine, requestLog } from './request-log';
export { responseEncoding } from './response-encoding';
export { API_RESPONSE_HEADERS, responseHeaders } from './response-headers';
export { type HttpContext, type HttpEvent, type RequestFacts, readHeader, requestFacts } from './types';
export { userTokenAuth, type VerifyUserToken } from './user-token-auth';
