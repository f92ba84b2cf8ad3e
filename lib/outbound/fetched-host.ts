/**
 * What the request line may say about the URL connect is asked to fetch: its host, with the port
 * when the URL names one other than its scheme's, and nothing else of it — never the path, the
 * query or the user info, which can hold a caller's secrets. Imports nothing, so the connect
 * function's cold start can read it without the outbound fetch.
 */

/** The schemes connect fetches: `checkOutboundUrl` refuses every other. */
export const FETCHED_SCHEMES: ReadonlySet<string> = new Set(['http:', 'https:']);

/** Longer than any DNS name with a port: such a "host" is not logged. */
const LONGEST_LOGGED_HOST = 300;

/**
 * The host of `url` as the URL parser normalises it (lower case, Punycode, IPv6 in brackets,
 * decimal IPv4), or `undefined` when it is no URL: what a connect body's `url` field, or a stored
 * system's URL on a refresh, is logged as.
 */
export function fetchedHostOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  const parsed = URL.parse(url);
  // Only what could be fetched: other schemes' "hosts" are any text, and never fetched.
  if (parsed === null || !FETCHED_SCHEMES.has(parsed.protocol)) return undefined;
  const { host } = parsed;
  // An http(s) URL always has a host (the parser refuses one without).
  return host.length > LONGEST_LOGGED_HOST ? undefined : host;
}
