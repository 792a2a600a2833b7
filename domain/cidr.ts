/** IPv4 and IPv6 addresses and CIDR blocks (ipaddr.js, no I/O): key allowlists, trusted proxies, webhook targets. */
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * An address in canonical form: IPv4 in four-part decimal only (not `0x7f.1` or `2130706433`), any
 * IPv6 form with an optional zone; IPv4-mapped IPv6 (`::ffff:1.2.3.4`) becomes plain IPv4.
 */
export function parseIp(text: string): Address | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!ipaddr.IPv6.isValid(text)) return null;
  const v6 = ipaddr.IPv6.parse(text);
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
}

/** A block `addr/bits`, or a single address (all its bits). */
function parseCidr(cidr: string): [Address, number] | null {
  const [addr, bits, extra] = cidr.split('/');
  if (extra !== undefined) return null;
  const ip = parseIp(addr);
  if (!ip) return null;
  const max = ip.kind() === 'ipv4' ? 32 : 128;
  if (bits === undefined) return [ip, max];
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return null;
  // An IPv4-mapped block (::ffff:10.0.0.0/104) is the IPv4 block it maps.
  const width = ip.kind() === 'ipv4' && addr.includes(':') ? Number(bits) - 96 : Number(bits);
  return width < 0 ? null : [ip, width];
}

export function isValidCidr(cidr: string): boolean {
  return parseCidr(cidr) !== null;
}

export function ipInCidr(ip: string, cidr: string): boolean {
  const target = parseIp(ip);
  const block = parseCidr(cidr);
  return !!target && !!block && target.kind() === block[0].kind() && target.match(block);
}

export function ipAllowed(ip: string, allowlist: readonly string[]): boolean {
  return allowlist.some((cidr) => ipInCidr(ip, cidr));
}

// IPv4-compatible IPv6 (deprecated, RFC 4291 2.5.5.1): some stacks still route ::a.b.c.d to a.b.c.d.
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/**
 * True for an address on the public internet; false for anything else, unparseable included:
 * ipaddr.js's special-purpose ranges (loopback, private, link-local, shared, documentation,
 * benchmarking, multicast, reserved, unique-local, NAT64, 6to4, Teredo…) and IPv4-compatible IPv6.
 */
export function isPublicAddress(ip: string): boolean {
  const address = parseIp(ip);
  if (!address) return false;
  if (address.kind() === 'ipv6' && address.match(IPV4_COMPATIBLE)) return false;
  return address.range() === 'unicast';
}
