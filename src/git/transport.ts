import http from 'node:http';
import https from 'node:https';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { checkFetchUrl, guardedLookup } from '../net/safe-fetch.js';

class GitTransportError extends Error {}

/** A response larger than the configured maximum (GIT_MAX_FETCH_BYTES). */
export class GitSizeLimitError extends GitTransportError {}

/**
 * The HTTP client isomorphic-git uses for clone/fetch/push: every request URL goes through the
 * private-address policy (literal addresses before connecting, DNS answers at connect time), no
 * redirects are followed, and each request has a time limit.
 */
export function guardedHttp(opts: { allowPrivate: boolean; timeoutMs: number; maxBytes: number }): HttpClient {
  const lookup = guardedLookup(opts.allowPrivate);
  return {
    async request(req: GitHttpRequest): Promise<GitHttpResponse> {
      let url: URL;
      try {
        url = checkFetchUrl(req.url, opts.allowPrivate);
      } catch (err) {
        throw new GitTransportError((err as Error).message);
      }
      // A body of announced length, or sent chunked (a push's pack, made while it is sent), is
      // streamed; isomorphic-git's small request bodies are gathered first to announce theirs.
      const streamed =
        req.body && (req.headers?.['content-length'] !== undefined || req.headers?.['transfer-encoding'] === 'chunked') ? req.body : null;
      const chunks: Uint8Array[] = [];
      if (req.body && !streamed) for await (const c of req.body) chunks.push(c);
      const body = Buffer.concat(chunks);
      const mod = url.protocol === 'https:' ? https : http;
      return new Promise<GitHttpResponse>((resolve, reject) => {
        const r = mod.request(
          url,
          {
            method: req.method ?? 'GET',
            headers: { ...req.headers, ...(body.length ? { 'content-length': String(body.length) } : {}) },
            lookup,
            timeout: opts.timeoutMs,
          },
          (res) => {
            const headers: Record<string, string> = {};
            for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
            resolve({
              url: url.toString(),
              method: req.method,
              statusCode: res.statusCode ?? 0,
              statusMessage: res.statusMessage ?? '',
              headers,
              body: capped(res, opts.maxBytes, url.host),
            });
          },
        );
        r.on('timeout', () => r.destroy(new GitTransportError(`Timed out talking to ${url.host}`)));
        r.on('error', (err) =>
          reject(err instanceof GitTransportError ? err : new GitTransportError(`Could not reach ${url.host}: ${err.message}`)),
        );
        if (!streamed) r.end(body);
        else
          void (async () => {
            for await (const c of streamed) if (!r.write(c)) await new Promise((ok) => r.once('drain', ok));
            r.end();
          })().catch((err) => r.destroy(err as Error));
      });
    },
  };
}

/** The response body, failing once more than `max` bytes arrived (a repository too big to take in). */
async function* capped(
  res: AsyncIterable<Uint8Array> & { destroy(err?: Error): void },
  max: number,
  host: string,
): AsyncIterableIterator<Uint8Array> {
  let total = 0;
  for await (const chunk of res) {
    total += chunk.length;
    if (total > max) {
      const err = new GitSizeLimitError(`The repository at ${host} is over the size limit: its pack is more than ${max} bytes`);
      res.destroy(err);
      throw err;
    }
    yield chunk;
  }
}
