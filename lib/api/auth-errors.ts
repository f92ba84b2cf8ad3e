import { ApiError } from './errors';

/**
 * The errors of contract checks 1 and 2, built in one place so the middleware that throws
 * them and the OpenAPI examples that show them cannot word them differently.
 */

/** 401: no `Authorization` header (`headerPresent` false), or one that is not `Bearer <key>`. */
export function missingApiKey(headerPresent: boolean): ApiError {
  return new ApiError(
    'MISSING_API_KEY',
    headerPresent
      ? 'The Authorization header must use the Bearer scheme: `Authorization: Bearer <API_KEY>`.'
      : 'Send your API key in the Authorization header: `Authorization: Bearer <API_KEY>`.',
    { headers: { 'www-authenticate': 'Bearer' } },
  );
}

/**
 * 403: the same words whether the key is unknown, revoked or malformed, so a caller cannot
 * probe which keys exist.
 */
export function invalidApiKey(): ApiError {
  return new ApiError('INVALID_API_KEY', 'The API key is not valid: it is unknown or has been revoked.');
}
