import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { AllowedHosts } from '../../lib/outbound/allow-hosts';
import { OutboundError } from '../../lib/outbound/errors';
import { createGuardedLookup, type ResolveHost } from '../../lib/outbound/guarded-lookup';

const NO_ALLOWLIST: AllowedHosts = new Set();
const v4 = (address: string): LookupAddress => ({ address, family: 4 });
const v6 = (address: string): LookupAddress => ({ address, family: 6 });

/** A resolver that answers from a fixed table (names are case-insensitive); these tests never touch real DNS. */
function fakeResolver(answers: Record<string, LookupAddress[]>): ResolveHost {
  return async (hostname) => answers[hostname.toLowerCase()] ?? [];
}

/** Calls the lookup as Node's socket does with autoSelectFamily on: `{ all: true }`. */
function lookupAll(lookup: LookupFunction, hostname: string, family = 0): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    lookup(hostname, { all: true, family }, (error, addresses) =>
      error ? reject(error) : resolve(addresses as LookupAddress[]),
    );
  });
}

/** Calls the lookup as Node's socket does with autoSelectFamily off: one address and its family. */
function lookupOne(lookup: LookupFunction, hostname: string): Promise<[string, number | undefined]> {
  return new Promise((resolve, reject) => {
    lookup(hostname, {}, (error, address, family) =>
      error ? reject(error) : resolve([address as string, family]),
    );
  });
}

describe('guarded lookup', () => {
  // A public name passes, in both shapes Node asks for.
  it('answers public addresses in the shape asked for', async () => {
    const lookup = createGuardedLookup(
      NO_ALLOWLIST,
      fakeResolver({ 'api.example.com': [v6('2606:4700::1'), v4('93.184.215.14')] }),
    );
    expect(await lookupAll(lookup, 'api.example.com')).toEqual([v6('2606:4700::1'), v4('93.184.215.14')]);
    expect(await lookupOne(lookup, 'api.example.com')).toEqual(['2606:4700::1', 6]);
    expect(await lookupAll(lookup, 'api.example.com', 4)).toEqual([v4('93.184.215.14')]);
  });

  // A name that points at the metadata service is refused with URL_NOT_ALLOWED.
  it('refuses a name that resolves to a private address', async () => {
    const lookup = createGuardedLookup(
      NO_ALLOWLIST,
      fakeResolver({ 'evil.example': [v4('169.254.169.254')] }),
    );
    const error = await lookupAll(lookup, 'evil.example').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboundError);
    expect((error as OutboundError).code).toBe('URL_NOT_ALLOWED');
    // The kind of address, never the address: it would map the private network for the caller.
    expect((error as OutboundError).message).toBe(
      "The server's host name resolves to a link-local address (where cloud metadata services live); " +
        'only hosts with public addresses can be fetched.',
    );
    expect((error as OutboundError).message).not.toContain('169.254');
    await expect(lookupOne(lookup, 'evil.example')).rejects.toThrow(OutboundError);
  });

  // One good address does not excuse a bad one: Node may fall back to any of them.
  it('refuses a name with one public and one private address', async () => {
    const lookup = createGuardedLookup(
      NO_ALLOWLIST,
      fakeResolver({ 'mixed.example': [v4('93.184.215.14'), v4('10.0.0.5')] }),
    );
    await expect(lookupAll(lookup, 'mixed.example')).rejects.toThrow(
      'resolves to a private network address;',
    );
  });

  // A private address disguised as IPv6 (mapped loopback, unique-local) is still private.
  it.each([['::ffff:127.0.0.1'], ['fd00:ec2::254'], ['64:ff9b::a00:1']])(
    'refuses an AAAA answer of %s',
    async (address) => {
      const lookup = createGuardedLookup(NO_ALLOWLIST, fakeResolver({ 'v6.example': [v6(address)] }));
      await expect(lookupAll(lookup, 'v6.example')).rejects.toThrow(OutboundError);
    },
  );

  // DNS rebinding: a check made earlier saw a public address; the lookup at connect time sees
  // the private one the name now answers, and refuses.
  it('checks again at every connection, so rebinding is refused', async () => {
    const answers = [[v4('93.184.215.14')], [v4('127.0.0.1')]];
    let calls = 0;
    const rebinding: ResolveHost = async () => answers[Math.min(calls++, answers.length - 1)]!;
    const lookup = createGuardedLookup(NO_ALLOWLIST, rebinding);
    expect(await lookupAll(lookup, 'rebind.example')).toEqual([v4('93.184.215.14')]);
    await expect(lookupAll(lookup, 'rebind.example')).rejects.toThrow('a loopback address');
    expect(calls).toBe(2);
  });

  // An allowlisted name (a local stand-in for the external API) may resolve to loopback.
  it('lets allowlisted names resolve to loopback', async () => {
    const lookup = createGuardedLookup(
      new Set(['api.test']),
      fakeResolver({ 'api.test': [v4('127.0.0.1')], 'other.test': [v4('127.0.0.1')] }),
    );
    expect(await lookupAll(lookup, 'API.test')).toEqual([v4('127.0.0.1')]);
    await expect(lookupAll(lookup, 'other.test')).rejects.toThrow(OutboundError);
  });

  // A name with no address (or none of the family asked for) fails like the system resolver does.
  it('reports a name without usable addresses as ENOTFOUND', async () => {
    const lookup = createGuardedLookup(
      NO_ALLOWLIST,
      fakeResolver({ 'v4only.example': [v4('93.184.215.14')] }),
    );
    await expect(lookupAll(lookup, 'nowhere.example')).rejects.toMatchObject({
      code: 'ENOTFOUND',
      hostname: 'nowhere.example',
      message: 'getaddrinfo ENOTFOUND nowhere.example',
    });
    await expect(lookupAll(lookup, 'v4only.example', 6)).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  // Node names the family as a number or, from some callers, as `IPv4` / `IPv6`.
  it.each<[number | 'IPv4' | 'IPv6', LookupAddress[]]>([
    [4, [v4('93.184.215.14')]],
    ['IPv4', [v4('93.184.215.14')]],
    [6, [v6('2606:4700::1')]],
    ['IPv6', [v6('2606:4700::1')]],
  ])('answers only family %j when asked for it', async (family, expected) => {
    const lookup = createGuardedLookup(
      NO_ALLOWLIST,
      fakeResolver({ 'api.example.com': [v6('2606:4700::1'), v4('93.184.215.14')] }),
    );
    const answer = await new Promise((resolve, reject) =>
      lookup('api.example.com', { all: true, family } as never, (error, addresses) =>
        error ? reject(error) : resolve(addresses),
      ),
    );
    expect(answer).toEqual(expected);
  });

  // Without an injected resolver the system's is used, its answers kept in the order it gives
  // them (`verbatim`), as Node's own lookup does. `localhost` comes from the hosts file.
  it('uses the system resolver in its own order', async () => {
    const lookup = createGuardedLookup(new Set(['localhost']));
    const system = await dnsLookup('localhost', { all: true, verbatim: true });
    expect(await lookupAll(lookup, 'localhost')).toEqual(system);
  });

  // Resolver failures pass through untouched, for the fetcher to report as unreachable.
  it('passes resolver errors on', async () => {
    const failing: ResolveHost = async () => {
      throw Object.assign(new Error('queryA ETIMEOUT'), { code: 'EAI_AGAIN' });
    };
    await expect(lookupAll(createGuardedLookup(NO_ALLOWLIST, failing), 'slow.example')).rejects.toMatchObject(
      {
        code: 'EAI_AGAIN',
      },
    );
  });
});
