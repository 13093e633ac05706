import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './http.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'openapi');

/**
 * A local HTTP server for OpenAPI sources: the fixture files, plus `/stall` (never answers),
 * `/error500`, `/flaky/<file>` (stalls on its first request only), and a request counter per path.
 */
export async function startSpecServer() {
  const hits = new Map<string, number>();
  const stalled: import('node:http').ServerResponse[] = [];
  const srv = await serve(async (req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(p, (hits.get(p) ?? 0) + 1);
    if (p === '/stall' || (p.startsWith('/flaky/') && hits.get(p) === 1)) {
      stalled.push(res);
      return; // never answer
    }
    if (p === '/error500') {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
      return;
    }
    const rel = p.replace(/^\/flaky\//, '/').replace(/^\/+/, '');
    const file = path.join(FIXTURES, rel);
    if (!file.startsWith(FIXTURES)) return void res.writeHead(400).end();
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
    close: async () => {
      for (const r of stalled) r.destroy();
      await srv.close();
    },
  };
}

export function fixture(name: string): Promise<string> {
  return readFile(path.join(FIXTURES, name), 'utf8');
}
