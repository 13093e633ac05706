import { BlockList, isIP } from 'node:net';

// Addresses a server-side fetch must not reach unless configuration allows it: loopback, private
// ranges, link-local (cloud metadata lives there), carrier-grade NAT, multicast and reserved ranges.
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['::', 96], // IPv4-compatible (deprecated)
  ['64:ff9b::', 96], // NAT64: reaches any IPv4 address, private ones included
  ['64:ff9b:1::', 48], // local-use NAT64
  ['2002::', 16], // 6to4: embeds an IPv4 address
  ['2001::', 32], // Teredo
  ['2001:db8::', 32], // documentation
  ['100::', 64], // discard-only
] as const) blocked.addSubnet(net, prefix, 'ipv6');

/** True when the address is private, loopback, link-local or otherwise not a public unicast address. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const lower = address.toLowerCase();
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    if (mapped) return blocked.check(mapped[1], 'ipv4');
    return blocked.check(lower, 'ipv6');
  }
  return true;
}
