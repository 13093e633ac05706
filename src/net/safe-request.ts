// A POST (or any method) with a body under the same policy as safeFetch: private-address check at
// connect time, a total time limit, a response size limit. Unlike safeFetch it returns every status
// (the caller decides what a 429 or a 503 means) and follows no redirect.
import { checkFetchUrl, requestOnce, FetchFailedError, FetchTimeoutError, type OneRequest, type SafeFetchResult } from './safe-fetch.js';

export interface SafeRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  maxBytes: number;
  allowPrivate: boolean;
  signal?: AbortSignal;
  /** Each chunk of the response body as it arrives (see requestOnce). */
  onData?: OneRequest['onData'];
}

export async function safeRequest(raw: string, o: SafeRequestOptions): Promise<SafeFetchResult> {
  const url = checkFetchUrl(raw, o.allowPrivate);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), o.timeoutMs);
  const onAbort = () => controller.abort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await requestOnce(
      url,
      {
        method: o.method ?? 'POST',
        headers: { accept: 'application/json', ...o.headers },
        body: o.body,
        maxBytes: o.maxBytes,
        allowPrivate: o.allowPrivate,
        onData: o.onData,
      },
      controller.signal,
    );
  } catch (err) {
    if (controller.signal.aborted) throw new FetchTimeoutError(`Timed out after ${o.timeoutMs} ms calling ${url.host}`);
    if (err instanceof FetchFailedError) throw err;
    throw new FetchFailedError(`Could not reach ${url.host}: ${(err as Error).message}`);
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onAbort);
  }
}
