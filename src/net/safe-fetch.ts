import http from 'node:http';
import https from 'node:https';
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress } from './address-policy.js';

export class FetchTimeoutError extends Error {
  readonly code = 'FETCH_TIMEOUT';
}
export class FetchFailedError extends Error {
  readonly code = 'FETCH_ERROR';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

interface SafeFetchOptions {
  timeoutMs: number;
  maxBytes: number;
  allowPrivate: boolean;
  headers?: Record<string, string>;
  maxRedirects?: number;
}

export interface SafeFetchResult {
  url: string;
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A DNS lookup that refuses private addresses. It runs at connect time, so a hostname that
 * resolves to a public address when checked and a private one when used (DNS rebinding) is caught.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return (callback as any)(err);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((a) => !allowPrivate && isPrivateAddress(a.address));
      if (bad) {
        return (callback as any)(new FetchFailedError(`Refusing to fetch ${hostname}: it resolves to a private address`));
      }
      if ((options as dns.LookupOptions).all) return (callback as any)(null, list);
      return (callback as any)(null, list[0].address, list[0].family);
    });
  };
}

/** Check a URL before any connection: scheme and literal IP hosts. */
export function checkFetchUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchFailedError(`Invalid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchFailedError(`Unsupported URL scheme "${url.protocol}"`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) && isPrivateAddress(host)))) {
    throw new FetchFailedError(`Refusing to fetch ${url.host}: private and loopback addresses are not allowed`);
  }
  return url;
}

/** One HTTP exchange, no redirect followed: a private address refused at connect time, the response capped at `maxBytes`. */
export interface OneRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  maxBytes: number;
  allowPrivate: boolean;
  /** Each chunk of the response body as it arrives (a streamed answer), besides the whole at the end. */
  onData?: (chunk: Buffer, res: http.IncomingMessage) => void;
}

export function requestOnce(url: URL, o: OneRequest, signal: AbortSignal): Promise<SafeFetchResult> {
  return new Promise((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(
      url,
      { method: o.method, headers: { 'user-agent': 'docsplatform-fetch/1', ...o.headers }, lookup: guardedLookup(o.allowPrivate), signal },
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
          o.onData?.(c, res);
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
}

function once(url: URL, o: SafeFetchOptions, signal: AbortSignal): Promise<SafeFetchResult> {
  return requestOnce(
    url,
    { method: 'GET', headers: { accept: '*/*', ...o.headers }, maxBytes: o.maxBytes, allowPrivate: o.allowPrivate },
    signal,
  );
}

export async function safeFetch(raw: string, o: SafeFetchOptions): Promise<SafeFetchResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), o.timeoutMs);
  try {
    let url = checkFetchUrl(raw, o.allowPrivate);
    for (let hop = 0; ; hop++) {
      let res: SafeFetchResult;
      try {
        res = await once(url, o, controller.signal);
      } catch (err) {
        if (controller.signal.aborted) throw new FetchTimeoutError(`Timed out after ${o.timeoutMs} ms fetching ${url.host}`);
        if (err instanceof FetchFailedError) throw err;
        throw new FetchFailedError(`Could not fetch ${url.host}: ${(err as Error).message}`);
      }
      if (res.status >= 300 && res.status < 400 && res.headers.location) {
        if (hop >= (o.maxRedirects ?? 5)) throw new FetchFailedError('Too many redirects');
        url = checkFetchUrl(new URL(res.headers.location, url).toString(), o.allowPrivate);
        continue;
      }
      if (res.status < 200 || res.status >= 300) {
        throw new FetchFailedError(`${url.host} answered HTTP ${res.status}`, res.status);
      }
      return res;
    }
  } finally {
    clearTimeout(timer);
  }
}
