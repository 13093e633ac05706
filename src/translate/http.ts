// JSON POST to a provider with retries: 429 and 5xx (and network errors, timeouts) are retried with
// exponential backoff, waiting what `Retry-After` asks when the provider says (capped); 401/403 and
// other 4xx fail at once. The key travels only in the headers given here, never in an error text.
import { safeRequest } from '../net/safe-request.js';
import { ProviderError } from './provider.js';

export interface HttpSettings {
  timeoutMs: number;
  /** Retries after the first attempt. */
  retries: number;
  /** First backoff delay; doubles each retry. */
  backoffMs: number;
  /** Longest wait a Retry-After may impose. */
  maxRetryAfterMs: number;
  allowPrivate: boolean;
  maxBytes: number;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(new ProviderError('aborted', true));
      },
      { once: true },
    );
  });

/** Seconds or an HTTP date, in milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(header) ? header[0] : header;
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export async function postJson(
  name: string,
  url: string,
  body: unknown,
  headers: Record<string, string>,
  s: HttpSettings,
  signal?: AbortSignal,
): Promise<unknown> {
  let lastError = '';
  for (let attempt = 0; attempt <= s.retries; attempt++) {
    let wait = s.backoffMs * 2 ** attempt;
    try {
      const res = await safeRequest(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
        timeoutMs: s.timeoutMs,
        maxBytes: s.maxBytes,
        allowPrivate: s.allowPrivate,
        signal,
      });
      if (res.status >= 200 && res.status < 300) {
        try {
          return JSON.parse(res.body.toString('utf8'));
        } catch {
          throw new ProviderError(`${name} answered a body that is not JSON`, false, true);
        }
      }
      const detail = res.body.toString('utf8').slice(0, 200).replace(/\s+/g, ' ');
      if (res.status === 401 || res.status === 403) {
        throw new ProviderError(`${name} refused the credentials (HTTP ${res.status}); check TRANSLATION_API_KEY`, true);
      }
      if (res.status !== 429 && res.status < 500)
        throw new ProviderError(`${name} rejected the request (HTTP ${res.status}): ${detail}`, true);
      lastError = `${name} answered HTTP ${res.status}`;
      const ra = retryAfterMs(res.headers['retry-after']);
      if (ra !== undefined) wait = Math.min(ra, s.maxRetryAfterMs);
    } catch (err) {
      if (err instanceof ProviderError) throw err;
      lastError = `${name}: ${(err as Error).message}`;
    }
    if (attempt < s.retries) await sleep(wait, signal);
  }
  throw new ProviderError(`${lastError} (gave up after ${s.retries + 1} attempts)`, false);
}
