import type { HttpRequest } from './types';
import { readHeader } from './types';

/**
 * `Bearer`, any case, then one or more spaces or tabs, then a token with no whitespace in it.
 */
const BEARER = /^bearer[ \t]+(\S+)$/i;

/**
 * An Authorization header sent twice, as a comma joins the two (see `takeBearerToken`): a comma
 * first or last (one copy empty), or a comma and then an authentication scheme's name (IANA's
 * registry, and the usual others) alone or before a space (`Bearer k,Bearer k`, `Bearer k,DPoP`,
 * `Basic x,Bearer k`). Any other word after a comma is part of a key (`…,abc`: a key refused
 * so is told it is not valid, 403, not that it came twice).
 */
const SEVERAL =
  /^,|,$|,[ \t]*(?:bearer|basic|digest|negotiate|ntlm|dpop|token|apikey|api-key|hoba|mutual|oauth|privatetoken|scram-sha-1|scram-sha-256|vapid|concealed|aws4-hmac-sha256)(?:[ \t]|$)/i;

/**
 * The bearer token of a request, and whether an Authorization header was there at all. The
 * header is removed from the event on the way: nothing after this point needs it, and nothing
 * that logs or echoes the event later can leak the credential if it is gone.
 */
export function takeBearerToken(request: HttpRequest): {
  token: string | undefined;
  headerPresent: boolean;
  /** `Bearer` and nothing after it: a client that sent an empty credential (a field left blank). */
  empty: boolean;
  /**
   * Two credentials joined by a comma, as the header sent twice reads (even with one value): how
   * to word the refusal of a token that is missing or not valid, never a refusal of its own.
   */
  several: boolean;
} {
  const header = readHeader(request.event, 'authorization');
  // Two headers arrive joined by a comma (`Bearer k,Bearer k`, `Bearer k,bearer`, `Bearer,Bearer
  // k`, `Bearer k,DPoP`, `Bearer k,`). Only a hint: a key may hold a comma itself, so the token is
  // taken as ever and looked up, and `several` only words the refusal of one that is not valid.
  const several = header !== undefined && SEVERAL.test(header.trim());
  const token = header === undefined ? undefined : BEARER.exec(header.trim())?.[1];
  const empty = header !== undefined && /^bearer$/i.test(header.trim());
  const headers = request.event?.headers;
  if (headers) {
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'authorization') delete headers[name];
  }
  return { token, headerPresent: header !== undefined, empty, several };
}

/**
 * Whether a bearer credential has the shape of a JWT: three base64url parts whose first is a
 * JSON header naming an `alg`. Only chooses the wording of a refusal; it proves nothing.
 */
export function looksLikeJwt(credential: string): boolean {
  const parts = credential.split('.');
  if (parts.length !== 3 || !parts.every((part) => /^[A-Za-z0-9_-]*$/.test(part)) || parts[0] === '') {
    return false;
  }
  try {
    const header: unknown = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && 'alg' in header;
  } catch {
    return false;
  }
}
