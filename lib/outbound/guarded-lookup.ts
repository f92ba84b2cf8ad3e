/**
 * The host-name lookup outbound sockets use instead of the system one. It resolves the name and
 * refuses the connection unless every address is public, at the moment the socket connects, so
 * a name that answered with a public address a second ago (DNS rebinding) cannot slip through.
 */
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { addressRange, describeRange } from './address';
import { type AllowedHosts, isAllowlistedHost } from './allow-hosts';
import { OutboundError } from './errors';

/** Resolves a host name to all its addresses; the system resolver unless a test injects one. */
export type ResolveHost = (hostname: string) => Promise<readonly LookupAddress[]>;

const resolveWithSystemDns: ResolveHost = (hostname) => lookup(hostname, { all: true, verbatim: true });

/**
 * A `lookup` for `net.connect`/`tls.connect`. Node calls it with `{ all: true }` when it races
 * IPv4 and IPv6 (autoSelectFamily, on by default), and without when it wants one address; both
 * get answers in the shape they asked for. Allowlisted names are resolved but not checked.
 */
export function createGuardedLookup(
  allowHosts: AllowedHosts,
  resolveHost: ResolveHost = resolveWithSystemDns,
): LookupFunction {
  return (hostname, options, callback) => {
    resolveAllowedAddresses(hostname, allowHosts, resolveHost, wantedFamily(options.family)).then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      // Stryker disable next-line ArrayDeclaration,StringLiteral: Node ignores the address passed with an error
      (error: NodeJS.ErrnoException) => callback(error, options.all ? [] : ''),
    );
  };
}

async function resolveAllowedAddresses(
  hostname: string,
  allowHosts: AllowedHosts,
  resolveHost: ResolveHost,
  family: 4 | 6 | undefined,
): Promise<LookupAddress[]> {
  const resolved = await resolveHost(hostname);
  if (!isAllowlistedHost(hostname, allowHosts)) {
    // Every address, not just the one used: Node may fall back to any of them. The message
    // names the kind of address only: the address itself would map the private network to
    // whoever registers names pointing into it.
    for (const { address } of resolved) {
      const range = addressRange(address);
      if (range !== 'unicast') {
        throw new OutboundError(
          'URL_NOT_ALLOWED',
          `The server's host name resolves to ${describeRange(range)}; ` +
            'only hosts with public addresses can be fetched.',
        );
      }
    }
  }
  const usable = resolved.filter((entry) => family === undefined || entry.family === family);
  if (usable.length === 0) throw notFound(hostname);
  return usable.map(({ address, family }) => ({ address, family }));
}

function wantedFamily(family: number | 'IPv4' | 'IPv6' | undefined): 4 | 6 | undefined {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return undefined;
}

/** The error the system resolver gives for a name without addresses, so callers treat both alike. */
function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
    code: 'ENOTFOUND',
    hostname,
  });
}
