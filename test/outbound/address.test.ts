import { describe, expect, it } from 'vitest';
import { addressRange, describeRange } from '../../lib/outbound/address';
import { OutboundError } from '../../lib/outbound/errors';
import { checkOutboundUrl } from '../../lib/outbound/url-rules';

const NO_ALLOWLIST = new Set<string>();

/** The fetcher's own URL check on `http://<host>/`: the URL parser's normalization included. */
function refusalOf(host: string): OutboundError | undefined {
  try {
    checkOutboundUrl(`http://${host}/`, NO_ALLOWLIST, 'request');
    return undefined;
  } catch (error) {
    if (error instanceof OutboundError) return error;
    throw error;
  }
}

// Every spelling an attacker might use to reach this machine, its network or the cloud metadata service.
const HOSTILE_HOSTS: [string, string][] = [
  // Loopback in the spellings the URL parser folds into 127.0.0.1 (short, hex, octal, decimal).
  ['127.0.0.1', 'loopback'],
  ['127.1', 'loopback'],
  ['0x7f.1', 'loopback'],
  ['017700000001', 'loopback'],
  ['2130706433', 'loopback'],
  ['0177.0.0.1', 'loopback'],
  ['127.000.000.001', 'loopback'],
  ['127.0.0.1.', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['[::1]', 'loopback'],
  ['[0:0:0:0:0:0:0:1]', 'loopback'],
  // The unspecified address, which Linux connects to this machine.
  ['0.0.0.0', 'unspecified'],
  ['0', 'unspecified'],
  ['0x0', 'unspecified'],
  ['[::]', 'unspecified'],
  // IPv4 carried inside IPv6: mapped, NAT64, IPv4-compatible, translated.
  ['[::ffff:127.0.0.1]', 'IPv4-mapped loopback'],
  ['[::ffff:7f00:1]', 'IPv4-mapped loopback'],
  ['[::ffff:10.0.0.1]', 'IPv4-mapped private'],
  ['[::ffff:169.254.169.254]', 'IPv4-mapped metadata'],
  ['[64:ff9b::7f00:1]', 'NAT64 loopback'],
  ['[64:ff9b::a9fe:a9fe]', 'NAT64 metadata'],
  ['[64:ff9b:1::1]', 'local-use NAT64'],
  ['[::7f00:1]', 'IPv4-compatible loopback'],
  ['[::ffff:0:7f00:1]', 'IPv4-translated'],
  // IPv6 tunnels that can wrap any IPv4 address.
  ['[2002:7f00:1::]', '6to4'],
  ['[2001::1]', 'Teredo'],
  // RFC 1918 private networks.
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  // Link-local, home of the cloud metadata service (IPv4 and AWS's IPv6 endpoint).
  ['169.254.169.254', 'link-local'],
  ['[fd00:ec2::254]', 'unique-local (AWS metadata over IPv6)'],
  ['[fe80::1]', 'link-local'],
  // Carrier-grade NAT.
  ['100.64.0.1', 'CGNAT'],
  ['100.127.255.255', 'CGNAT'],
  // Benchmarking, documentation and other reserved ranges.
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['192.0.0.1', 'IETF protocol assignments'],
  ['192.0.2.1', 'documentation'],
  ['203.0.113.7', 'documentation'],
  ['240.0.0.1', 'reserved'],
  ['[2001:db8::1]', 'documentation'],
  ['[fec0::1]', 'deprecated site-local'],
  // Multicast and broadcast.
  ['224.0.0.1', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['[ff02::1]', 'multicast'],
  // Unique-local IPv6: the IPv6 private networks.
  ['[fc00::1]', 'unique-local'],
  ['[fd12:3456::1]', 'unique-local'],
  // localhost by name, however it is written.
  ['localhost', 'name'],
  ['localhost.', 'name'],
  ['LOCALHOST', 'name'],
  ['foo.localhost', 'name'],
  ['a.b.LocalHost.', 'name'],
];

describe('hostile hosts', () => {
  // At least 40 forms; each is refused before any connection, from the URL alone.
  it('covers a large corpus', () => {
    expect(HOSTILE_HOSTS.length).toBeGreaterThanOrEqual(40);
  });

  // Each one, written into a URL, is refused with URL_NOT_ALLOWED.
  it.each(HOSTILE_HOSTS)('refuses %s (%s)', (host) => {
    expect(refusalOf(host)?.code).toBe('URL_NOT_ALLOWED');
  });
});

describe('public hosts', () => {
  // Ordinary public addresses pass the URL check (nothing here connects to them).
  it.each(['8.8.8.8', '1.1.1.1', '[2606:4700:4700::1111]', 'api.example.com', '[64:ff9b::808:808]'])(
    'allows %s',
    (host) => {
      expect(refusalOf(host)).toBeUndefined();
    },
  );
});

describe('addressRange', () => {
  // Wrapped IPv4 is judged by the IPv4 address inside, as the socket would reach it.
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['64:ff9b::a9fe:a9fe', 'linkLocal'],
    ['64:ff9b::808:808', 'unicast'],
    ['::7f00:1', 'reserved'],
    ['2002:7f00:1::', '6to4'],
    ['2001::1', 'teredo'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['8.8.8.8', 'unicast'],
    ['1.1.1.1', 'unicast'],
    ['2606:4700:4700::1111', 'unicast'],
    ['169.254.169.254', 'linkLocal'],
    ['::ffff:169.254.169.254', 'linkLocal'],
  ])('%s is %s', (ip, range) => {
    expect(addressRange(ip)).toBe(range);
  });

  // Only canonical addresses count: odd spellings are host names to a resolver, never "public".
  it.each(['localhost', '0x7f.1', '127.1', '[::1]', ''])('%j is not an address', (text) => {
    expect(addressRange(text)).toBe('invalid');
  });
});

describe('describeRange', () => {
  // Every range a refusal can name, in the words the error message uses.
  it.each([
    ['127.0.0.1', 'a loopback address (this machine)'],
    ['0.0.0.0', 'the unspecified address (this machine)'],
    ['10.0.0.1', 'a private network address'],
    ['fd00::1', 'a private network address'],
    ['169.254.169.254', 'a link-local address (where cloud metadata services live)'],
    ['100.64.0.1', 'a carrier-grade NAT address'],
    ['224.0.0.1', 'a multicast address'],
    ['255.255.255.255', 'the broadcast address'],
    ['240.0.0.1', 'a reserved address'],
    ['::7f00:1', 'a reserved address'],
    ['198.18.0.1', 'a reserved address'],
    ['2001:2::1', 'an address reserved for benchmarking'],
    ['2002:7f00:1::', 'a 6to4 tunnel address'],
    ['2001::1', 'a Teredo tunnel address'],
    ['64:ff9b:1::1', 'a NAT64 address'],
    ['::ffff:0:7f00:1', 'an IPv4-translated address'],
  ])('%s is %s', (ip, words) => {
    expect(describeRange(addressRange(ip))).toBe(words);
  });

  it('names a range it has no words for', () => {
    expect(describeRange('amt')).toBe('an address in the amt range, not a public one');
  });
});
