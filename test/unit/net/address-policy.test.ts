import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../../src/net/address-policy.js';
import { checkFetchUrl } from '../../../src/net/safe-fetch.js';

describe('address policy', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
  ])('refuses %s', (ip) => expect(isPrivateAddress(ip)).toBe(true));
  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])('allows %s', (ip) =>
    expect(isPrivateAddress(ip)).toBe(false),
  );

  it('checks literal hosts and schemes before connecting', () => {
    expect(() => checkFetchUrl('http://127.0.0.1/x', false)).toThrow(/private/);
    expect(() => checkFetchUrl('http://[::1]:8080/x', false)).toThrow(/private/);
    expect(() => checkFetchUrl('http://localhost/x', false)).toThrow(/private/);
    expect(() => checkFetchUrl('file:///etc/passwd', true)).toThrow(/scheme/);
    expect(checkFetchUrl('http://127.0.0.1/x', true).host).toBe('127.0.0.1');
    expect(checkFetchUrl('https://example.com/spec.yaml', false).host).toBe('example.com');
  });
});

// Documentation, benchmarking and shared address ranges (issue 8, item 7): each is refused at its
// first, a middle and its last address, in every IPv6 form that embeds the IPv4 address; the
// addresses just outside stay allowed, so a range that is too wide fails too.
const RANGES = [
  { name: 'TEST-NET-1 192.0.2.0/24', inside: ['192.0.2.0', '192.0.2.77', '192.0.2.255'], outside: ['192.0.1.255', '192.0.3.0'] },
  {
    name: 'TEST-NET-2 198.51.100.0/24',
    inside: ['198.51.100.0', '198.51.100.42', '198.51.100.255'],
    outside: ['198.51.99.255', '198.51.101.0'],
  },
  { name: 'TEST-NET-3 203.0.113.0/24', inside: ['203.0.113.0', '203.0.113.9', '203.0.113.255'], outside: ['203.0.112.255', '203.0.114.0'] },
  {
    name: 'benchmarking 198.18.0.0/15',
    inside: ['198.18.0.0', '198.18.200.1', '198.19.255.255'],
    outside: ['198.17.255.255', '198.20.0.0'],
  },
  {
    name: 'shared address space 100.64.0.0/10',
    inside: ['100.64.0.0', '100.100.100.200', '100.127.255.255'],
    outside: ['100.63.255.255', '100.128.0.0'],
  },
];

/** The IPv6 spellings of an IPv4 address that reach it (mapped, dotted and hex, long and short). */
function ipv6Forms(v4: string): string[] {
  const [a, b, c, d] = v4.split('.').map(Number);
  const hi = ((a << 8) | b).toString(16);
  const lo = ((c << 8) | d).toString(16);
  return [
    `::ffff:${v4}`,
    `::ffff:${hi}:${lo}`,
    `0:0:0:0:0:ffff:${hi}:${lo}`,
    `::FFFF:${v4}`,
    `::ffff:0:${v4}`,
    `64:ff9b::${hi}:${lo}`,
    `::${v4}`,
  ];
}

describe('address policy: documentation, benchmarking and shared ranges', () => {
  for (const r of RANGES) {
    it(`refuses ${r.name}, also IPv4-mapped and embedded in IPv6`, () => {
      for (const ip of r.inside) {
        expect(isPrivateAddress(ip), ip).toBe(true);
        for (const v6 of ipv6Forms(ip)) expect(isPrivateAddress(v6), v6).toBe(true);
      }
    });
    it(`allows the public neighbours of ${r.name}`, () => {
      for (const ip of r.outside) {
        expect(isPrivateAddress(ip), ip).toBe(false);
        expect(isPrivateAddress(`::ffff:${ip}`), `::ffff:${ip}`).toBe(false);
      }
    });
  }

  it('refuses the IPv6 documentation and benchmarking ranges', () => {
    for (const ip of [
      '2001:db8::1',
      '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff',
      '3fff::1',
      '3fff:fff:ffff::1',
      '2001:2::1',
      '2001:2:0:ffff::1',
    ]) {
      expect(isPrivateAddress(ip), ip).toBe(true);
    }
    for (const ip of ['2001:db9::1', '4000::1', '2001:3::1', '2001:4860:4860::8888']) expect(isPrivateAddress(ip), ip).toBe(false);
  });

  it('refuses what is not an IP address, and zone-scoped link-local addresses', () => {
    expect(isPrivateAddress('example.com')).toBe(true);
    expect(isPrivateAddress('')).toBe(true);
    expect(isPrivateAddress('fe80::1%eth0')).toBe(true);
  });

  it('refuses literal hosts of those ranges in URLs, however they are spelled', () => {
    for (const url of [
      'http://192.0.2.1/spec.yaml',
      'https://198.51.100.7:8443/x',
      'http://203.0.113.255/',
      'http://198.19.0.1/',
      'http://100.64.0.1/',
      'http://3325256705/', // 198.51.100.1 as one decimal number
      'http://0xcb.0.0x71.1/', // 203.0.113.1 in hex parts
      'http://[::ffff:192.0.2.1]/',
      'http://[::ffff:c633:6401]/', // 198.51.100.1
      'http://[2001:db8::5]/',
      'http://[3fff::5]/',
    ]) {
      expect(() => checkFetchUrl(url, false), url).toThrow(/private/);
      expect(checkFetchUrl(url, true).protocol).toMatch(/^https?:$/);
    }
    expect(checkFetchUrl('http://198.51.101.1/', false).hostname).toBe('198.51.101.1');
  });
});
