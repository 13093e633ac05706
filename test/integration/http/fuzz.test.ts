// A bounded fuzz of every route: malformed JSON, wrong types, huge strings, odd ids, bogus cursors,
// out-of-range limits, deep nesting. Whatever the input, the server answers without a 5xx and every
// error has the body `{"error": {"code": <status>, "message": "..."}}` — including the errors Node
// raises before a handler runs (malformed request line, oversized headers).
import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useTestApp } from '../../helpers/app.js';
import { rawRequest } from '../../helpers/http.js';
import { seedRouteIds } from '../../helpers/route-ids.js';
import { apiRoutes } from '../../../src/routes/index.js';
import type { RouteDef } from '../../../src/http/route.js';

const { t, org } = useTestApp({ env: { BODY_LIMIT_BYTES: '1048576' }, seedOrg: true });
const ids: Record<string, string> = {};

/** Deterministic pseudo-random numbers, so a failure can be replayed (mulberry32). */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const ODD_IDS = [
  'x'.repeat(129),
  '%25',
  '%25zz',
  '0',
  '-',
  '__proto__',
  'constructor',
  '%F0%9F%98%80',
  '%E2%80%AE',
  "'%3B--",
  'a%20b',
  '%C3%28',
  '%ff',
];
const ODD_VALUES = [
  '',
  'x'.repeat(20_000),
  '-1',
  '0',
  '99999999999999999999999',
  '1e3',
  'NaN',
  'true',
  '[]',
  '{"a":1}',
  '%00',
  '%F0%9F%98%80',
  'null',
  Buffer.from('{"k":["x",1]}').toString('base64url'),
  Buffer.from('{"after":"\'--"}').toString('base64url'),
  'bogus-cursor',
];
const WRONG_TYPES: unknown[] = [
  null,
  0,
  -1,
  1e308,
  true,
  [],
  {},
  [[[]]],
  'x'.repeat(200_000),
  { object: 'document', nodes: [null] },
  '\u0000',
  '__proto__',
];
const MALFORMED_BODIES = [
  '{',
  '}',
  'nul',
  '"unterminated',
  '[1,2',
  '{"a":}',
  '1e999',
  '\u0000',
  '{"__proto__":{"admin":true}}',
  '[]',
  'null',
  '"text"',
  '123',
];

function deepJson(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

function bodyKeys(r: RouteDef): string[] {
  const b = r.body as z.ZodType | undefined;
  if (b instanceof z.ZodObject) return Object.keys(b.shape);
  return [];
}

function fill(path: string, override?: [string, string]) {
  return path
    .replace(/:(\w+)/g, (_, n: string) => (override && override[0] === n ? override[1] : (ids[n] ?? 'x')))
    .replace('*', override?.[0] === '*' ? override[1] : 'a/b');
}

interface Case {
  method: string;
  path: string;
  body?: string;
  contentType?: string;
  token?: string | null;
}

function casesFor(r: RouteDef, rand: () => number): Case[] {
  const out: Case[] = [];
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const withBody = r.method !== 'GET' && r.method !== 'DELETE';
  const base = fill(r.path);
  // Odd ids in each parameter.
  for (const m of r.path.matchAll(/:(\w+)|\*/g)) {
    const name = m[1] ?? '*';
    for (const odd of ODD_IDS) out.push({ method: r.method, path: fill(r.path, [name, odd]), body: withBody ? '{}' : undefined });
  }
  // Odd query values in declared keys, bogus cursors and limits, unknown keys.
  const keys = Object.keys(r.query ?? {});
  for (const key of [...keys, 'page', 'limit', 'unknown']) {
    for (let i = 0; i < 4; i++) {
      out.push({ method: r.method, path: `${base}?${key}=${encodeURIComponent(pick(ODD_VALUES))}`, body: withBody ? '{}' : undefined });
    }
  }
  out.push(
    { method: r.method, path: `${base}?limit=0` },
    { method: r.method, path: `${base}?limit=1001` },
    { method: r.method, path: `${base}?limit=-5` },
  );
  out.push({ method: r.method, path: `${base}?page=${'A'.repeat(3000)}` });
  if (withBody) {
    for (const b of MALFORMED_BODIES) out.push({ method: r.method, path: base, body: b });
    out.push({ method: r.method, path: base, body: deepJson(50_000) });
    out.push({ method: r.method, path: base, body: JSON.stringify({ a: 'x'.repeat(2_000_000) }) }); // over the body limit
    out.push({ method: r.method, path: base, body: 'title=x', contentType: 'application/x-www-form-urlencoded' });
    for (const key of bodyKeys(r)) {
      for (let i = 0; i < 4; i++) out.push({ method: r.method, path: base, body: JSON.stringify({ [key]: pick(WRONG_TYPES) }) });
    }
    out.push({ method: r.method, path: base, body: JSON.stringify(Object.fromEntries(bodyKeys(r).map((k) => [k, pick(WRONG_TYPES)]))) });
  }
  // Without a token, and with a garbage one.
  out.push({ method: r.method, path: base, token: null }, { method: r.method, path: base, token: 'dp_' + 'z'.repeat(5000) });
  return out;
}

beforeAll(async () => {
  Object.assign(ids, await seedRouteIds(t, org));
});

function checkShape(c: Case, res: { status: number; body: any; text: string; headers: Record<string, unknown> }) {
  const what = `${c.method} ${c.path.slice(0, 200)} body=${(c.body ?? '').slice(0, 80)} -> ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, what).toBeLessThan(500);
  if (res.status >= 400 && c.method !== 'HEAD') {
    expect(res.body, what).toEqual({ error: { code: res.status, message: expect.any(String) } });
    expect(res.body.error.message.length, what).toBeGreaterThan(0);
    expect(res.text, what).not.toMatch(/\n\s+at .+\(.*:\d+:\d+\)/); // no stack trace
  }
}

describe('fuzz', () => {
  it('answers every malformed request to every route without a 5xx, with the error body', async () => {
    const rand = rng(20261122);
    // DELETEs last: they remove what other routes' valid ids point at.
    const routes = [...apiRoutes].sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
    let sent = 0;
    for (const r of routes) {
      const cases = casesFor(r, rand);
      // A few at a time: bounded concurrency, bounded count.
      for (let i = 0; i < cases.length; i += 8) {
        await Promise.all(
          cases.slice(i, i + 8).map(async (c) => {
            const headers: Record<string, string> = {};
            const token = c.token === undefined ? org.adminToken : c.token;
            if (token) headers.authorization = `Bearer ${token}`;
            if (c.body !== undefined) headers['content-type'] = c.contentType ?? 'application/json';
            const res = await rawRequest(t.baseUrl, c.method, c.path, { headers, body: c.body });
            checkShape(c, res as never);
            sent++;
          }),
        );
      }
    }
    expect(sent).toBeGreaterThan(3000);
    // Still healthy and still serving.
    expect((await t.api('GET', '/healthz')).status).toBe(200);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}`, { token: org.adminToken })).status).toBe(200);
    // Its run time grows with the route table (about 55 s alone with the site routes): a budget, not a timing assertion.
  }, 240_000);

  it('shapes the errors Node raises before a handler: a malformed request line and oversized headers', async () => {
    const { port } = new URL(t.baseUrl);
    const send = (payload: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(payload));
        let data = '';
        socket.on('data', (d) => (data += d.toString('utf8')));
        socket.on('end', () => resolve(data));
        socket.on('close', () => resolve(data));
        socket.on('error', reject);
      });
    const parse = (raw: string) => {
      const [head, body] = raw.split('\r\n\r\n');
      return { status: Number(head.split(' ')[1]), head, body: JSON.parse(body) };
    };
    const garbage = parse(await send('NOT A REQUEST\r\n\r\n'));
    expect(garbage.status).toBe(400);
    expect(garbage.head.toLowerCase()).toContain('content-type: application/json');
    expect(garbage.body).toEqual({ error: { code: 400, message: expect.stringContaining('Malformed') } });
    const huge = parse(await send(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(huge.status).toBe(431);
    expect(huge.body.error.code).toBe(431);
    const badHeader = parse(await send('GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n'));
    expect(badHeader.status).toBe(400);
    expect(badHeader.body.error.code).toBe(400);
  });
});
