/**
 * The rules a URL must pass before anything connects to it: the URL the caller sent, and again
 * every URL a server redirects to. Host names are checked again, address by address, when the
 * socket connects (see `guarded-lookup.ts`); this file catches what never reaches a lookup.
 */
import { credentialParameter, quoteText } from '../text';
import { addressRange, describeRange } from './address';
import { type AllowedHosts, isAllowlistedHost } from './allow-hosts';
import { OutboundError } from './errors';
import { FETCHED_SCHEMES } from './fetched-host';

// Not by an ES import, which would load Node's block list too (see ./allow-hosts.ts).
const { isIP } = process.getBuiltinModule('node:net');

/**
 * Where a URL to fetch comes from: a request's (kept with the system it registers), a redirect's
 * (written by the remote server, which may have been sent the bearer token, so messages about it
 * repeat nothing from it), or one a system kept already (a refresh's: refused a credential in its
 * query, a system stored before that rule could never be refreshed, only deleted).
 */
export type UrlSource = 'request' | 'redirect' | 'stored';

/** Below 1024 live SSH, SMTP, DNS and the like; only the two web ports are plausible APIs there. */
const LOWEST_HIGH_PORT = 1024;
const ALLOWED_LOW_PORTS = new Set([80, 443]);
/**
 * High ports of services that run each line of an HTTP request as a command (Redis, memcached):
 * a public one belongs to someone else, and the service must not be a way to send it commands.
 */
const REFUSED_HIGH_PORTS = new Set([6379, 11211]);

/**
 * The parsed URL if it may be fetched, else an `OutboundError` with code `URL_NOT_ALLOWED`.
 * Rules: http or https; no user name or password, nor a credential in the request's query
 * (`credentialParameter`); port 80, 443 or 1024–65535 other than 6379
 * and 11211; the host is not `localhost` (or a name under it) and, if it is an IP address, a
 * public unicast one. Hosts on the allowlist skip the port and host rules.
 */
export function checkOutboundUrl(url: string | URL, allowHosts: AllowedHosts, source: UrlSource): URL {
  const subject = source === 'redirect' ? 'The URL the server redirected to' : 'The URL';
  const parsed = parseAbsoluteUrl(url);
  if (parsed === undefined) {
    throw new OutboundError(
      'URL_NOT_ALLOWED',
      `${subject} is not a valid absolute URL; send one such as https://api.example.com/graph.`,
    );
  }
  if (!FETCHED_SCHEMES.has(parsed.protocol)) {
    const scheme = source !== 'redirect' ? ` (it uses ${quoteText(parsed.protocol)})` : '';
    throw new OutboundError(
      'URL_NOT_ALLOWED',
      `${subject} is not an http: or https: URL${scheme}; only those can be fetched.`,
    );
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new OutboundError(
      'URL_NOT_ALLOWED',
      `${subject} contains a user name or password; remove them and send credentials as the token instead.`,
    );
  }
  // The request's URL is kept with the system and shown: a credential in its query would be too.
  const credential = source === 'request' ? credentialParameter(parsed) : undefined;
  if (credential !== undefined) {
    throw new OutboundError(
      'URL_NOT_ALLOWED',
      `${subject} carries a credential in its query or fragment (${quoteText(credential)}); remove it and send it as the token instead: the URL is kept with the system and shown on every read.`,
    );
  }
  if (isAllowlistedHost(parsed.hostname, allowHosts)) return parsed;
  if (parsed.port !== '' && !isAllowedPort(Number(parsed.port))) {
    throw new OutboundError(
      'URL_NOT_ALLOWED',
      `${subject} uses port ${parsed.port}; only ports 80, 443 and 1024–65535 (except 6379 and 11211) can be fetched.`,
    );
  }
  const [host, is] =
    source !== 'redirect' ? [`The URL's host ${quoteText(parsed.hostname)}`, 'is'] : [subject, 'points at'];
  if (isLocalhostName(parsed.hostname)) {
    throw new OutboundError(
      'URL_NOT_ALLOWED',
      `${host} names this machine; only public hosts can be fetched.`,
    );
  }
  const range = ipLiteralRange(parsed.hostname);
  if (range !== undefined && range !== 'unicast') {
    throw new OutboundError(
      'URL_NOT_ALLOWED',
      `${host} ${is} ${describeRange(range)}; only public addresses can be fetched.`,
    );
  }
  return parsed;
}

/** A copy when given a URL, which `new URL` reads as its text. */
function parseAbsoluteUrl(text: string | URL): URL | undefined {
  try {
    return new URL(text);
  } catch /* Stryker disable next-line BlockStatement: an empty catch returns undefined as well */ {
    return undefined;
  }
}

function isAllowedPort(port: number): boolean {
  return ALLOWED_LOW_PORTS.has(port) || (port >= LOWEST_HIGH_PORT && !REFUSED_HIGH_PORTS.has(port));
}

/** `localhost`, `foo.localhost` and their fully qualified spellings (RFC 6761 reserves the whole tree). */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * The range of a hostname that is an IP literal, else `undefined`. Sockets skip the lookup for
 * literals, so this is the only check they get. The URL parser has already turned every IPv4
 * spelling (`127.1`, `0x7f.1`, `2130706433`) into dotted decimal and bracketed IPv6.
 */
function ipLiteralRange(hostname: string): string | undefined {
  // The URL parser brackets every IPv6 hostname, and allows brackets nowhere else.
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : addressRange(bare);
}
