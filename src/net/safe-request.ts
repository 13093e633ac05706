// A POST (or any method) with a body under the same policy as safeFetch: private-address check at
// connect time, a total time limit, a response size limit. Unlike safeFetch it returns every status
// (the caller decides what a 429 or a 503 means) and follows no redirect.
import http from 'node:http';
import https from 'node:https';
import { checkFetchUrl, guardedLookup, FetchFailedError, FetchTimeoutError, type SafeFetchResult } from './safe-fetch.js';

export interface SafeRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  maxBytes: number;
  allowPrivate: boolean;
  signal?: AbortSignal;
}

export async function safeRequest(raw: string, o: SafeRequestOptions): Promise<SafeFetchResult> {
  const url = checkFetchUrl(raw, o.allowPrivate);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), o.timeoutMs);
  const onAbort = () => controller.abort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await new Promise<SafeFetchResult>((resolve, reject) => {
      const mod = url.protocol === 'https:' ? https : http;
      const req = mod.request(
        url,
        {
          method: o.method ?? 'POST',
          headers: { 'user-agent': 'docsplatform-fetch/1', accept: 'application/json', ...o.headers },
          lookup: guardedLookup(o.allowPrivate),
          signal: controller.signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > o.maxBytes) {
              req.destroy(new FetchFailedError(`Response exceeds ${o.maxBytes} bytes`));
              return;
            }
            chunks.push(c);
          });
          res.on('end', () =>
            resolve({ url: url.toString(), status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(o.body);
    });
  } catch (err) {
    if (controller.signal.aborted) throw new FetchTimeoutError(`Timed out after ${o.timeoutMs} ms calling ${url.host}`);
    if (err instanceof FetchFailedError) throw err;
    throw new FetchFailedError(`Could not reach ${url.host}: ${(err as Error).message}`);
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onAbort);
  }
}
