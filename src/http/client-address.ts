// The caller's address: what rate limits, site insights' visitors and the audit log count by.
//
// Without TRUST_PROXY it is the socket's address and X-Forwarded-For is ignored (anyone can send
// it). With TRUST_PROXY naming the reverse proxies in front of us, a request whose socket comes
// from one of them is followed back through X-Forwarded-For, right to left, over the trusted hops:
// the first address no trusted proxy stands for is the client (proxy-addr, as Express does).
// Only X-Forwarded-For is read: `Forwarded`, `X-Forwarded-Proto` and `X-Forwarded-Host` are not.
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';
import type { Config } from '../config.js';

/**
 * Only the right end of X-Forwarded-For can matter (our proxies append to it), so a longer header
 * is cut to its last MAX_HEADER_CHARS characters (from the first whole entry) before it is parsed,
 * and the walk stops after MAX_HOPS trusted proxies: a huge or many-entry header costs no more
 * than a normal one.
 */
export const MAX_HEADER_CHARS = 1024;
export const MAX_HOPS = 16;

type Trust = (addr: string, hop: number) => boolean;
const compiled = new WeakMap<readonly string[], Trust>();

function trustOf(list: readonly string[]): Trust {
  let trust = compiled.get(list);
  if (!trust) {
    const inner = proxyaddr.compile([...list]);
    // Hop 0 is the socket; hops 1.. are X-Forwarded-For from the right.
    trust = (addr, hop) => hop < MAX_HOPS && inner(addr, hop);
    compiled.set(list, trust);
  }
  return trust;
}

/** The right end of an X-Forwarded-For value, at most MAX_HEADER_CHARS long, cut between entries. */
function boundedHeader(value: string | string[] | undefined): string {
  const header = Array.isArray(value) ? value.join(',') : (value ?? '');
  if (header.length <= MAX_HEADER_CHARS) return header;
  const tail = header.slice(-MAX_HEADER_CHARS);
  const comma = tail.indexOf(',');
  return comma === -1 ? '' : tail.slice(comma + 1);
}

/**
 * One spelling per address: IPv4-mapped IPv6 (`::ffff:192.0.2.1`, as a dual-stack socket reports
 * IPv4 peers) becomes the IPv4 address, and IPv6 from a header gets its canonical form (lower
 * case, zeros compressed), so the same client is one rate-limit bucket and one visitor.
 */
export function normalizeAddress(address: string): string {
  if (isIP(address) === 6 && !address.includes('%')) {
    const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
    if (!mapped) return canonical;
    const high = parseInt(mapped[1], 16);
    const low = parseInt(mapped[2], 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return address;
}

/**
 * The client's address for `req`: the socket's unless TRUST_PROXY trusts it, then the right-most
 * X-Forwarded-For entry no trusted proxy stands for. An entry that is not an IP address is not
 * believed: the trusted hop that passed it on is the nearest address known. Null when the socket
 * has no address (it closed).
 */
export function clientAddress(req: IncomingMessage, config: Pick<Config, 'trustProxy'>): string | null {
  const socket = req.socket.remoteAddress;
  if (!socket) return null;
  if (config.trustProxy.length === 0) return normalizeAddress(socket);
  const trust = trustOf(config.trustProxy);
  if (!trust(socket, 0)) return normalizeAddress(socket); // an untrusted peer's header is not even parsed
  const view = { socket: { remoteAddress: socket }, headers: { 'x-forwarded-for': boundedHeader(req.headers['x-forwarded-for']) } };
  const hops = proxyaddr.all(view as unknown as IncomingMessage, trust);
  let found = hops[hops.length - 1];
  if (hops.length > 1 && isIP(found) === 0) found = hops[hops.length - 2];
  return normalizeAddress(found);
}
