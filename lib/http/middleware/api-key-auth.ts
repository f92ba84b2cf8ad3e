import { invalidApiKey, missingApiKey } from '../../api/auth-errors';
import {
  type AuthenticatedKey,
  type HttpMiddleware,
  type HttpRequest,
  readHeader,
  requestFacts,
} from './types';

/** Resolves a presented key to its owner, or `undefined` when it is unknown, revoked or malformed. */
export type VerifyApiKey = (presentedKey: string) => Promise<AuthenticatedKey | undefined>;

export interface ApiKeyAuthOptions {
  verify: VerifyApiKey;
}

/**
 * `Bearer`, any case, then one or more spaces or tabs, then a token with no whitespace in it.
 * Two Authorization headers arrive joined by a comma (`Bearer a,Bearer b`) and so fail here.
 */
const BEARER = /^bearer[ \t]+(\S+)$/i;

/** Contract checks 1 and 2: a Bearer API key must be present (401) and must be active (403). */
export function apiKeyAuth(options: ApiKeyAuthOptions): HttpMiddleware {
  const { verify } = options;

  const apiKeyAuthBefore = async (request: HttpRequest): Promise<void> => {
    const header = readHeader(request.event, 'authorization');
    const token = header === undefined ? undefined : BEARER.exec(header.trim())?.[1];
    // Nothing after this point needs the header, and nothing that logs or echoes the event
    // later can leak the key if it is gone.
    dropAuthorizationHeader(request);
    if (token === undefined) throw missingApiKey(header !== undefined);
    const identity = await verify(token);
    if (identity === undefined) throw invalidApiKey();
    request.context.apiKey = { id: identity.id, owner: identity.owner };
    requestFacts(request).keyId = identity.id;
  };

  return { before: apiKeyAuthBefore };
}

function dropAuthorizationHeader(request: HttpRequest): void {
  const headers = request.event?.headers;
  if (!headers) return;
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() === 'authorization') delete headers[name];
  }
}
