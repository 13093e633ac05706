import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { clientAddress, MAX_HEADER_CHARS, MAX_HOPS, normalizeAddress } from '../../../src/http/client-address.js';

/** A request as node:http hands it over: the socket's peer and the headers (lower-case names). */
function request(socket: string | undefined, xff?: string | string[]): IncomingMessage {
  return { socket: { remoteAddress: socket }, headers: xff === undefined ? {} : { 'x-forwarded-for': xff } } as unknown as IncomingMessage;
}

const trusting = (value?: string) => loadConfig(value === undefined ? {} : { TRUST_PROXY: value });

describe('TRUST_PROXY', () => {
  it('is off by default: the socket is the client and X-Forwarded-For is ignored', () => {
    const config = trusting();
    expect(config.trustProxy).toEqual([]);
    expect(clientAddress(request('127.0.0.1', '203.0.113.7'), config)).toBe('127.0.0.1');
    expect(clientAddress(request('198.51.100.4', '203.0.113.7, 10.0.0.1'), config)).toBe('198.51.100.4');
  });

  it('takes addresses, CIDRs and the names loopback, linklocal, uniquelocal, spaces and case aside', () => {
    expect(trusting(' Loopback , 10.1.0.0/16,2001:db8::1,  192.0.2.0/255.255.255.0,').trustProxy).toEqual([
      'loopback',
      '10.1.0.0/16',
      '2001:db8::1',
      '192.0.2.0/255.255.255.0',
    ]);
    expect(trusting('linklocal,uniquelocal').trustProxy).toEqual(['linklocal', 'uniquelocal']);
  });

  it('refuses true, a hop count and anything that is not an address at start-up, naming the variable and the value', () => {
    for (const bad of ['true', '1', '2', '*', 'all', 'off']) {
      expect(() => trusting(bad)).toThrow(ConfigError);
      expect(() => trusting(bad)).toThrow(
        `TRUST_PROXY takes the addresses or CIDRs of your proxies (or loopback, linklocal, uniquelocal), not "${bad}"`,
      );
    }
    expect(() => trusting('loopback,true')).toThrow(/hop count lets any client choose/);
    for (const bad of [
      'localhost',
      'nginx.internal',
      '10.0.0.300',
      '10.0.0.0/33',
      '10.0.0.0/abc',
      '0.0.0.0/0',
      '::/0',
      'loopback;10.0.0.1',
    ]) {
      expect(() => trusting(bad)).toThrow(ConfigError);
      expect(() => trusting(bad)).toThrow(/^TRUST_PROXY: ".*" is not an address, a CIDR, loopback, linklocal or uniquelocal/);
    }
  });
});

describe('the client address behind trusted proxies', () => {
  const loopback = trusting('loopback');

  it('takes the address a trusted proxy reports', () => {
    expect(clientAddress(request('127.0.0.1', '203.0.113.7'), loopback)).toBe('203.0.113.7');
    expect(clientAddress(request('::1', '203.0.113.7'), loopback)).toBe('203.0.113.7');
  });

  it('ignores X-Forwarded-For from a socket it does not trust: a spoofed header changes nothing', () => {
    expect(clientAddress(request('198.51.100.4', '127.0.0.1'), loopback)).toBe('198.51.100.4');
    expect(clientAddress(request('198.51.100.4', '203.0.113.7, 127.0.0.1'), loopback)).toBe('198.51.100.4');
  });

  it('walks a chain of trusted proxies right to left and stops at the first address none of them is', () => {
    const chain = trusting('10.0.0.0/8, 192.168.1.10');
    // client -> CDN edge 10.2.3.4 -> load balancer 192.168.1.10 -> us
    expect(clientAddress(request('192.168.1.10', '203.0.113.7, 10.2.3.4'), chain)).toBe('203.0.113.7');
    // Whatever the client wrote itself sits left of its real address and is never reached.
    expect(clientAddress(request('192.168.1.10', '1.1.1.1, 10.9.9.9, 203.0.113.7, 10.2.3.4'), chain)).toBe('203.0.113.7');
    // A trusted proxy that forwards nothing is itself the client.
    expect(clientAddress(request('192.168.1.10'), chain)).toBe('192.168.1.10');
    expect(clientAddress(request('192.168.1.10', ''), chain)).toBe('192.168.1.10');
    // All hops trusted: the farthest one is the nearest address known.
    expect(clientAddress(request('192.168.1.10', '10.0.0.5, 10.2.3.4'), chain)).toBe('10.0.0.5');
  });

  it('joins repeated X-Forwarded-For headers as one list', () => {
    expect(clientAddress(request('127.0.0.1', ['203.0.113.1', '203.0.113.7']), loopback)).toBe('203.0.113.7');
  });

  it('does not believe an entry that is not an IP address: the proxy that passed it on is the nearest known', () => {
    expect(clientAddress(request('127.0.0.1', 'evil; drop table'), loopback)).toBe('127.0.0.1');
    expect(clientAddress(request('127.0.0.1', '203.0.113.7, unknown'), loopback)).toBe('127.0.0.1');
    const chain = trusting('10.0.0.0/8, 127.0.0.1');
    expect(clientAddress(request('127.0.0.1', '<script>, 10.2.3.4'), chain)).toBe('10.2.3.4');
  });

  it('gives one spelling per address: IPv4-mapped IPv6 as IPv4, IPv6 canonical', () => {
    expect(clientAddress(request('::ffff:127.0.0.1', '203.0.113.7'), loopback)).toBe('203.0.113.7');
    expect(clientAddress(request('::ffff:198.51.100.4', '203.0.113.7'), loopback)).toBe('198.51.100.4');
    expect(clientAddress(request('::ffff:198.51.100.4'), trusting())).toBe('198.51.100.4');
    expect(clientAddress(request('127.0.0.1', '::FFFF:203.0.113.7'), loopback)).toBe('203.0.113.7');
    expect(clientAddress(request('127.0.0.1', '0:0:0:0:0:ffff:cb00:7107'), loopback)).toBe('203.0.113.7');
    expect(clientAddress(request('127.0.0.1', '2001:DB8:0:0::0:1'), loopback)).toBe('2001:db8::1');
    expect(normalizeAddress('fe80::1%eth0')).toBe('fe80::1%eth0');
    expect(normalizeAddress('192.0.2.1')).toBe('192.0.2.1');
  });

  it('has no address for a closed socket', () => {
    expect(clientAddress(request(undefined, '203.0.113.7'), loopback)).toBeNull();
    expect(clientAddress(request(undefined), trusting())).toBeNull();
  });

  it('reads only the right end of a huge header, so it costs no more than a normal one', () => {
    const huge = `${'198.51.100.1, '.repeat(200_000)}203.0.113.7`;
    expect(huge.length).toBeGreaterThan(100 * MAX_HEADER_CHARS);
    expect(clientAddress(request('127.0.0.1', huge), loopback)).toBe('203.0.113.7');
    // One giant entry, no comma in the kept tail: nothing believable, the proxy is the nearest known.
    expect(clientAddress(request('127.0.0.1', 'x'.repeat(10 * MAX_HEADER_CHARS)), loopback)).toBe('127.0.0.1');
    // Cut one character into an entry: what is left of it (203.0.113.5 of 9203.0.113.5) is dropped,
    // never read as an address; the trusted hops after it are all there is.
    const proxies = ',' + Array.from({ length: 5 }, () => '127.0.0.1').join(',');
    const cut = `9203.0.113.5${' '.repeat(MAX_HEADER_CHARS + 1 - '9203.0.113.5'.length - proxies.length)}${proxies}`;
    expect(cut.length).toBe(MAX_HEADER_CHARS + 1);
    expect(clientAddress(request('127.0.0.1', cut), loopback)).toBe('127.0.0.1');
  });

  it(`follows at most ${MAX_HOPS} trusted hops`, () => {
    const hops = Array.from({ length: 40 }, (_, i) => `127.0.0.${i + 2}`);
    // Hop 0 is the socket; the walk gives up on hop MAX_HOPS and takes what stands there.
    const found = clientAddress(request('127.0.0.1', hops.join(', ')), loopback);
    expect(found).toBe(hops[hops.length - MAX_HOPS]);
  });
});
