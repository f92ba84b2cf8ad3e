import { ApiError } from './errors';

/**
 * The errors of contract checks 1 and 2, built in one place so the middleware that throws
 * them and the OpenAPI examples that show them cannot word them differently.
 */

/**
 * What is wrong with an Authorization header that holds no credential the route can read:
 * `Bearer` with nothing after it (`empty`: a key field left blank; "must use the Bearer scheme"
 * told such a client what it had done right), or two Bearer credentials joined by a comma
 * (`several`: the header sent twice, which API Gateway and Node join so).
 */
export type BearerShape = 'empty' | 'several' | undefined;

/** 401: no `Authorization` header (`headerPresent` false), or one that is not `Bearer <key>`. */
export function missingApiKey(headerPresent: boolean, shape?: BearerShape): ApiError {
  return new ApiError(
    'MISSING_API_KEY',
    shape === 'empty'
      ? 'The Authorization header holds no API key after Bearer: `Authorization: Bearer <API_KEY>`.'
      : shape === 'several'
        ? 'The Authorization header was sent more than once; send one: `Authorization: Bearer <API_KEY>`.'
        : headerPresent
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

/**
 * 403: a user access token (a JWT) sent where an API key belongs. Still INVALID_API_KEY, the
 * contract's code for check 2, but saying which credential the route takes.
 */
export function accessTokenInsteadOfApiKey(): ApiError {
  return new ApiError(
    'INVALID_API_KEY',
    'This route takes an API key, not a user access token: send `Authorization: Bearer <API_KEY>`. ' +
      'Create a key with your access token: POST /api/keys.',
  );
}

/**
 * 401: no `Authorization` header, one that is not `Bearer <token>`, or one of the `shape`s above,
 * on a user-token route.
 */
export function missingToken(headerPresent: boolean, shape?: BearerShape): ApiError {
  return new ApiError(
    'MISSING_TOKEN',
    shape === 'empty'
      ? 'The Authorization header holds no access token after Bearer: `Authorization: Bearer <USER_ACCESS_TOKEN>`.'
      : shape === 'several'
        ? 'The Authorization header was sent more than once; send one: `Authorization: Bearer <USER_ACCESS_TOKEN>`.'
        : headerPresent
          ? 'The Authorization header must use the Bearer scheme: `Authorization: Bearer <USER_ACCESS_TOKEN>`.'
          : 'Send your user access token in the Authorization header: `Authorization: Bearer <USER_ACCESS_TOKEN>`.',
    { headers: { 'www-authenticate': 'Bearer' } },
  );
}

/**
 * 401: a token that is not a valid access token of this service's user pool. One message for
 * every reason (expired, wrong issuer or client, an id token, a bad signature), so a caller
 * cannot probe which check failed; the reasons are in docs/tokens.md.
 */
export function invalidToken(): ApiError {
  return new ApiError(
    'INVALID_TOKEN',
    'The access token is not valid: it is expired, malformed, or not an access token of this service.',
    { headers: { 'www-authenticate': 'Bearer error="invalid_token"' } },
  );
}

/**
 * 401: an API key (anything that is not a JWT) sent where a user access token belongs; still
 * INVALID_TOKEN, saying which credential the route takes.
 */
export function apiKeyInsteadOfAccessToken(): ApiError {
  return new ApiError(
    'INVALID_TOKEN',
    'This route takes a user access token, not an API key: send `Authorization: Bearer <USER_ACCESS_TOKEN>`. ' +
      'API keys are for POST /api/engine.',
    { headers: { 'www-authenticate': 'Bearer error="invalid_token"' } },
  );
}
