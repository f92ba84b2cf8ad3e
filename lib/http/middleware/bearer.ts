import type { HttpRequest } from './types';
import { readHeader } from './types';

/**
 * `Bearer`, any case, then one or more spaces or tabs, then a token with no whitespace in it.
 * Two Authorization headers arrive joined by a comma (`Bearer a,Bearer b`) and so fail here.
 */
const BEARER = /^bearer[ \t]+(\S+)$/i;

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
  /** Two Bearer credentials joined by a comma: the header sent twice, even with one value. */
  several: boolean;
} {
  const header = readHeader(request.event, 'authorization');
  const token = header === undefined ? undefined : BEARER.exec(header.trim())?.[1];
  const empty = header !== undefined && /^bearer$/i.test(header.trim());
  const several = header !== undefined && /^bearer[ \t]+[^,]*,[ \t]*bearer\b/i.test(header.trim());
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
