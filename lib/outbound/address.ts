/**
 * Which kind of IP address a string is, so outbound requests can refuse every address that leads
 * back into the network the service runs in (loopback, private ranges, the cloud metadata
 * service at 169.254.169.254, …). Pure: no DNS, no sockets.
 */
import ipaddr from 'ipaddr.js';

// Not by an ES import, which would load Node's block list too (see ./allow-hosts.ts).
const { isIP } = process.getBuiltinModule('node:net');

/** The one label that means "an ordinary address on the public internet". */
const PUBLIC_UNICAST = 'unicast';

/** What `addressRange` answers for a string that is not an IP address at all. */
const NOT_AN_ADDRESS = 'invalid';

/** RFC 6052's well-known NAT64 prefix: the last 32 bits are the IPv4 address a NAT64 gateway reaches. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parse('64:ff9b::');
const NAT64_PREFIX_LENGTH = 96;

/** 2000::/3: the only IPv6 block IANA allocates for global unicast today. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parse('2000::');
const GLOBAL_UNICAST_V6_PREFIX_LENGTH = 3;

/**
 * The range an address belongs to, as `ipaddr.js` names it (`unicast`, `loopback`, `private`,
 * `linkLocal`, `uniqueLocal`, `6to4`, `teredo`, …), `reserved` for IPv6 outside 2000::/3, and
 * `invalid` for anything that is not a plain IPv4 or IPv6 address.
 *
 * IPv4-mapped (`::ffff:a.b.c.d`) and NAT64 (`64:ff9b::a.b.c.d`) addresses are judged by the IPv4
 * address they carry, because that is where a dual-stack socket or a NAT64 gateway sends them.
 */
export function addressRange(ip: string): string {
  // `isIP` accepts only canonical spellings; ipaddr.js alone would also take `0x7f.1` and the like.
  if (isIP(ip) === 0) return NOT_AN_ADDRESS;
  const address = ipaddr.parse(ip);
  if (address.kind() === 'ipv4') return address.range();
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range();
  if (v6.match(NAT64_WELL_KNOWN, NAT64_PREFIX_LENGTH)) return embeddedIPv4(v6).range();
  const range = v6.range();
  // ipaddr.js calls anything it has no name for `unicast`, including the deprecated
  // IPv4-compatible form `::7f00:1`; only 2000::/3 is really routed on the internet.
  if (range === PUBLIC_UNICAST && !v6.match(GLOBAL_UNICAST_V6, GLOBAL_UNICAST_V6_PREFIX_LENGTH)) {
    return 'reserved';
  }
  return range;
}

function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const high = address.parts[6]!;
  const low = address.parts[7]!;
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address (this machine)',
  unspecified: 'the unspecified address (this machine)',
  private: 'a private network address',
  uniqueLocal: 'a private network address',
  linkLocal: 'a link-local address (where cloud metadata services live)',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
  benchmarking: 'an address reserved for benchmarking',
  '6to4': 'a 6to4 tunnel address',
  teredo: 'a Teredo tunnel address',
  rfc6052: 'a NAT64 address',
  rfc6145: 'an IPv4-translated address',
};

/** A range label in words for error messages: `a private network address`, `a loopback address (this machine)`. */
export function describeRange(range: string): string {
  return RANGE_WORDS[range] ?? `an address in the ${range} range, not a public one`;
}
