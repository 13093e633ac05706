import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { serve } from './http.js';
import { OPENAPI_FIXTURES, TEST_FIXTURES } from './fixtures.js';

const FIXTURES = path.join(TEST_FIXTURES, 'openapi');

export interface SpecServerOptions {
  /** `/basic/<file>` answers only with these HTTP Basic credentials (401 otherwise). */
  basicAuth?: { username: string; password: string };
  /** `/token/<file>` answers only when the query parameter `name` has this value (401 otherwise). */
  queryToken?: { name: string; value: string };
}

/**
 * A local HTTP server for OpenAPI sources: the fixture files (and the real ones of the shared
 * fixtures, OPENAPI_FIXTURES of ./fixtures.ts, under `/shared/`), plus `/stall` (never answers),
 * `/error500`, `/flaky/<file>` (stalls on its first request only), the protected `/basic/<file>`
 * and `/token/<file>` (see options), a request counter per path and a count of refused requests.
 */
export async function startSpecServer(opts: SpecServerOptions = {}) {
  const hits = new Map<string, number>();
  const refused = new Map<string, number>();
  const stalled: import('node:http').ServerResponse[] = [];
  const srv = await serve(async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    let p = u.pathname;
    hits.set(p, (hits.get(p) ?? 0) + 1);
    const guard = /^\/(basic|token)\//.exec(p)?.[1];
    if (guard) {
      const expected = opts.basicAuth && `Basic ${Buffer.from(`${opts.basicAuth.username}:${opts.basicAuth.password}`).toString('base64')}`;
      const allowed =
        guard === 'basic'
          ? !!expected && req.headers.authorization === expected
          : !!opts.queryToken && u.searchParams.get(opts.queryToken.name) === opts.queryToken.value;
      if (!allowed) {
        refused.set(p, (refused.get(p) ?? 0) + 1);
        res.writeHead(401, { 'www-authenticate': 'Basic realm="specs"', 'content-type': 'text/plain' }).end('unauthorized');
        return;
      }
      p = p.slice(guard.length + 1);
    }
    if (p === '/stall' || (p.startsWith('/flaky/') && hits.get(p) === 1)) {
      stalled.push(res);
      return; // never answer
    }
    if (p === '/error500') {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
      return;
    }
    const rel = p.replace(/^\/flaky\//, '/').replace(/^\/+/, '');
    const root = rel.startsWith('shared/') ? OPENAPI_FIXTURES : FIXTURES;
    const file = path.join(root, rel.replace(/^shared\//, ''));
    if (!file.startsWith(root)) return void res.writeHead(400).end();
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': file.endsWith('.json') ? 'application/json' : 'application/yaml' }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  return {
    url: srv.url,
    hits,
    refused,
    close: async () => {
      for (const r of stalled) r.destroy();
      await srv.close();
    },
  };
}

export function fixture(name: string): Promise<string> {
  return readFile(path.join(FIXTURES, name), 'utf8');
}
