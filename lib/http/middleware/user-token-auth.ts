import { apiKeyInsteadOfAccessToken, invalidToken, missingToken } from '../../api/auth-errors';
import { looksLikeJwt, takeBearerToken } from './bearer';
import { type HttpMiddleware, type HttpRequest, requestFacts } from './types';

/** Resolves a presented access token to its user (`sub`), or `undefined` for any invalid token. */
export type VerifyUserToken = (token: string) => Promise<{ sub: string } | undefined>;

/** A user access token must be present (401 MISSING_TOKEN) and valid (401 INVALID_TOKEN). */
export function userTokenAuth(options: { verify: VerifyUserToken }): HttpMiddleware {
  const userTokenAuthBefore = async (request: HttpRequest): Promise<void> => {
    const { token, headerPresent, empty, several } = takeBearerToken(request);
    if (token === undefined)
      throw missingToken(headerPresent, empty ? 'empty' : several ? 'several' : undefined);
    const user = await options.verify(token);
    if (user === undefined && several) throw missingToken(true, 'several');
    // Told it sent an API key only when it could be one: a credential with dots in it (a JWT
    // cut short, one part too many, a header that is not JSON) is a token that is not valid.
    if (user === undefined)
      throw looksLikeJwt(token) || token.includes('.') ? invalidToken() : apiKeyInsteadOfAccessToken();
    request.context.user = { sub: user.sub };
    requestFacts(request).user = user.sub;
  };
  return { before: userTokenAuthBefore };
}
