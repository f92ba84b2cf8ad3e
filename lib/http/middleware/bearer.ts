import type { HttpRequest } from './types';
import { readHeader } from './types';

/**
 * `Bearer`, any case, then one or more spaces or tabs, then a token with no whitespace in it.
 */
const BEARER = /^bearer[ \t]+(\S+)$/i;

/** An Authorization header sent twice, as a comma joins the two: see `takeBearerToken`. */
const SEVERAL =
  /^[A-Za-z][\w-]*(?:[ \t]+[^,]*)?,[ \t]*(?:bearer|basic|digest|negotiate|aws4-hmac-sha256)(?![\w-])/i;

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
  /** Two credentials joined by a comma: the header sent twice, even with one value. */
  several: boolean;
} {
  const header = readHeader(request.event, 'authorization');
  // Two headers arrive joined by a comma: a scheme, maybe its credential, a comma and another
  // scheme (`Bearer k,Bearer k`, `Bearer k,bearer`, `Bearer,Bearer k`, `Basic x,Bearer k`).
  // Read first: the first credential would otherwise take the rest as part of itself.
  const several = header !== undefined && SEVERAL.test(header.trim());
  const token = header === undefined || several ? undefined : BEARER.exec(header.trim())?.[1];
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
