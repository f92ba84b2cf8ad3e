import { accessTokenInsteadOfApiKey, invalidApiKey, missingApiKey } from '../../api/auth-errors';
import { looksLikeJwt, takeBearerToken } from './bearer';
import { type AuthenticatedKey, type HttpMiddleware, type HttpRequest, requestFacts } from './types';

/** Resolves a presented key to its owner, or `undefined` when it is unknown, revoked or malformed. */
export type VerifyApiKey = (presentedKey: string) => Promise<AuthenticatedKey | undefined>;

export interface ApiKeyAuthOptions {
  verify: VerifyApiKey;
}

/** Contract checks 1 and 2: a Bearer API key must be present (401) and must be active (403). */
export function apiKeyAuth(options: ApiKeyAuthOptions): HttpMiddleware {
  const { verify } = options;

  const apiKeyAuthBefore = async (request: HttpRequest): Promise<void> => {
    const { token, headerPresent, empty, several } = takeBearerToken(request);
    if (token === undefined)
      throw missingApiKey(headerPresent, empty ? 'empty' : several ? 'several' : undefined);
    const identity = await verify(token);
    // Looked up first all the same: the shape of a refused credential only chooses the words. A
    // header sent twice is a 401 (no one key was sent), as one without a key is.
    if (identity === undefined) {
      if (several) throw missingApiKey(true, 'several');
      throw looksLikeJwt(token) ? accessTokenInsteadOfApiKey() : invalidApiKey();
    }
    request.context.apiKey = { id: identity.id, owner: identity.owner };
    requestFacts(request).keyId = identity.id;
  };

  return { before: apiKeyAuthBefore };
}
