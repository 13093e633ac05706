import type { TestResponse } from './http.js';

/** The statuses an operation ends in; `queued` and `running` are not final. */
export const FINAL_STATUSES: readonly string[] = ['succeeded', 'failed', 'skipped'];

export interface SettleOptions {
  /** The bearer token that may read the operation. */
  token?: string | null;
  /** How long to wait in all (default 30 s). */
  timeoutMs?: number;
  /** Pause between two reads (default 100 ms). */
  intervalMs?: number;
  /** Names the operation in the timeout message (default: its path). */
  what?: string;
  /** Called with every read, before its status is looked at (to check each answer, for example). */
  eachRead?: (r: TestResponse) => void;
}

/**
 * Reads an operation over the API until its status is final (succeeded, failed or skipped) and
 * returns its body. `operation` is its `location` header (a URL), its path or its id. On timeout,
 * fails with one line naming it and the last status (or error) seen.
 */
export async function operationSettled(
  t: { api: (method: string, path: string, opts?: { token?: string | null }) => Promise<TestResponse> },
  operation: string | null,
  opts: SettleOptions = {},
): Promise<any> {
  if (!operation) throw new Error('operationSettled: no operation given (a missing location header?)');
  const path = /^https?:/.test(operation)
    ? new URL(operation).pathname
    : operation.startsWith('/')
      ? operation
      : `/v1/operations/${operation}`;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let last: string;
  for (;;) {
    try {
      const r = await t.api('GET', path, { token: opts.token });
      opts.eachRead?.(r);
      if (FINAL_STATUSES.includes(r.body?.status)) return r.body;
      last = r.status === 200 ? `status ${r.body?.status}` : `HTTP ${r.status} ${r.text.slice(0, 200)}`;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`${opts.what ?? `operation ${path}`} did not settle within ${timeoutMs} ms (last: ${last})`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}
