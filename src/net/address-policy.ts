import { BlockList, isIP } from 'node:net';

// Addresses a server-side fetch must not reach unless configuration allows it: everything that is
// not a public unicast address (IANA special-purpose registries, RFC 6890 and successors).
const IPV4: ReadonlyArray<readonly [string, number, string]> = [
  ['0.0.0.0', 8, '"this network"'],
  ['10.0.0.0', 8, 'private (RFC 1918)'],
  ['100.64.0.0', 10, 'shared address space / carrier-grade NAT (RFC 6598)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata lives here)'],
  ['172.16.0.0', 12, 'private (RFC 1918)'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation TEST-NET-1 (RFC 5737)'],
  ['192.88.99.0', 24, '6to4 relay anycast (deprecated, RFC 7526)'],
  ['192.168.0.0', 16, 'private (RFC 1918)'],
  ['198.18.0.0', 15, 'benchmarking (RFC 2544)'],
  ['198.51.100.0', 24, 'documentation TEST-NET-2 (RFC 5737)'],
  ['203.0.113.0', 24, 'documentation TEST-NET-3 (RFC 5737)'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved, and the limited broadcast address'],
];

const IPV6: ReadonlyArray<readonly [string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'IPv4-compatible (deprecated): embeds an IPv4 address'],
  ['::ffff:0:0:0', 96, 'IPv4-translated (SIIT): embeds an IPv4 address'],
  ['64:ff9b::', 96, 'NAT64: reaches any IPv4 address, private ones included'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['100::', 64, 'discard-only'],
  ['2001::', 32, 'Teredo: embeds an IPv4 address'],
  ['2001:2::', 48, 'benchmarking (RFC 5180)'],
  ['2001:db8::', 32, 'documentation (RFC 3849)'],
  ['2002::', 16, '6to4: embeds an IPv4 address'],
  ['3fff::', 20, 'documentation (RFC 9637)'],
  ['fc00::', 7, 'unique local (private)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local (deprecated)'],
  ['ff00::', 8, 'multicast'],
];

const blocked = new BlockList();
for (const [net, prefix] of IPV4) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of IPV6) blocked.addSubnet(net, prefix, 'ipv6');

/**
 * True when the address is private, loopback, link-local, reserved for documentation or
 * benchmarking, or otherwise not a public unicast address. IPv4-mapped IPv6 addresses
 * (`::ffff:192.0.2.1`, `::ffff:c000:201`) are checked against the IPv4 ranges (node's BlockList
 * does this for every IPv6 form of the mapping). Anything that is not an IP address is refused.
 */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  try {
    if (family === 4) return blocked.check(address, 'ipv4');
    if (family === 6) return blocked.check(address.replace(/%.*$/, '').toLowerCase(), 'ipv6');
  } catch {
    return true;
  }
  return true;
}
