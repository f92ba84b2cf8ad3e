export { apiKeyAuth, type VerifyApiKey } from './api-key-auth';
export { errorResponse } from './error-response';
export { jsonBody } from './json-body';
export { requestLog } from './request-log';
export { chooseContentCoding, responseEncoding } from './response-encoding';
export { type HttpContext, type HttpEvent, requestFacts } from './types';
