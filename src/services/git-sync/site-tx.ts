// Whole sites from docs.yaml: what the writes of one application share (site-structure.ts for
// sections, groups and site spaces, site-links.ts for external links): the transaction, and the
// comparison that makes applying the same config again write nothing.
import type { PoolClient } from 'pg';
import type { Localized } from '../../git/format/docs-yaml.js';

export interface Tx {
  c: PoolClient;
  siteId: string;
  changed: boolean;
}

/** A write of the application: the site changed (its version moves once, at the end). */
export async function write(tx: Tx, fn: () => Promise<unknown>) {
  tx.changed = true;
  await fn();
}

const canonical = (v: unknown): string =>
  v && typeof v === 'object' && !Array.isArray(v)
    ? `{${Object.keys(v)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
        .join(',')}}`
    : JSON.stringify(v ?? null);

export const localizedOrNull = (l: Localized | undefined) => (l && Object.keys(l).length ? l : null);

/** The fields of `want` that differ from `have` (localized texts compared by content). */
export function diff(have: Record<string, unknown>, want: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(want)) if (canonical(have[k]) !== canonical(v)) out[k] = v;
  return out;
}
