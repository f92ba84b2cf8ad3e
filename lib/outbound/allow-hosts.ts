/**
 * Hosts exempt from the private-address rules, so tests and local runs can serve the external
 * API on loopback. Production leaves the list empty.
 */
import { type Env, optionalEnv } from '../config/env';
import { quoteText } from '../text';

/**
 * Taken from the CommonJS module, not by an ES import: this is read at every cold start of the
 * connect function, and an ES import of a built-in reads every export, so `node:net`'s
 * `BlockList` and `SocketAddress` getters would load Node's block list, about 0.5 ms of CPU, for
 * classes this never uses (as `node:http` in ./fetch-json.ts).
 */
const { isIP } = process.getBuiltinModule('node:net');

const ALLOW_HOSTS_ENV = 'CONNECT_ALLOW_HOSTS';

/** Host names and IP literals in the form a URL's `hostname` takes (lower case, IPv6 bracketed). */
export type AllowedHosts = ReadonlySet<string>;

/**
 * Reads `CONNECT_ALLOW_HOSTS`: host names or IP addresses separated by commas (`127.0.0.1,localhost`,
 * `::1`), any port. Unset means none; an empty entry or one that is more than a host throws.
 */
export function readConnectAllowHosts(env: Env): AllowedHosts {
  const raw = optionalEnv(env, ALLOW_HOSTS_ENV);
  if (raw === undefined) return new Set();
  return new Set(raw.split(',').map((entry) => allowedHostOf(entry.trim())));
}

/** Whether a URL hostname (or the bare name a socket looks up) is on the list; `Example.COM.` matches `example.com`. */
export function isAllowlistedHost(hostname: string, allowHosts: AllowedHosts): boolean {
  const bracketed = isIP(hostname) === 6 ? `[${hostname}]` : hostname;
  return allowHosts.has(withoutTrailingDot(bracketed.toLowerCase()));
}

function allowedHostOf(entry: string): string {
  if (entry === '') {
    throw new Error(
      `${ALLOW_HOSTS_ENV} has an empty entry; list host names or IP addresses separated by commas`,
    );
  }
  const bracketed = isIP(entry) === 6 ? `[${entry}]` : entry;
  const url = parseUrl(`http://${bracketed}/`);
  // Parsing as a URL gives the entry exactly the spelling request URLs get (`127.1` → `127.0.0.1`,
  // `Example.COM` → `example.com`, IPv6 compressed), so a plain set lookup matches them.
  if (
    url === null ||
    url.username !== '' ||
    url.password !== '' ||
    url.port !== '' ||
    url.pathname !== '/' ||
    url.search !== '' ||
    url.hash !== ''
  ) {
    throw new Error(
      `${ALLOW_HOSTS_ENV} entry ${quoteText(entry)} is not a host name or IP address; ` +
        'list hosts only, without scheme, port or path (every port is allowed)',
    );
  }
  return withoutTrailingDot(url.hostname);
}

function withoutTrailingDot(hostname: string): string {
  return hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
}

/** `URL.parse` without relying on Node 20.18+, where it first appeared. */
function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}
