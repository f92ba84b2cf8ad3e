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
export function takeBearerToken(request: HttpRequest): { token: string | undefined; headerPresent: boolean } {
  const header = readHeader(request.event, 'authorization');
  const token = header === undefined ? undefined : BEARER.exec(header.trim())?.[1];
  const headers = request.event?.headers;
  if (headers) {
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'authorization') delete headers[name];
  }
  return { token, headerPresent: header !== undefined };
}
