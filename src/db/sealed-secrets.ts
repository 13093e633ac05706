// Data steps that need the server secret, so cannot be SQL migrations: run after the migrations by
// every process that migrates (createAppContext with AUTO_MIGRATE, `npm run cli -- migrate`).
// Idempotent and safe to run from many processes at once (each row changes by compare-and-set).
import type { Queryable } from './pool.js';
import { listUnsealedSourceUrls, sealSourceUrl } from './repos/openapi.js';
import { sealUrl, splitUrlSecrets } from '../net/url-secrets.js';

/** Seal credentials still stored in clear (OpenAPI source URLs written before 0008); returns how many rows. */
export async function sealStoredSecrets(db: Queryable, secret: string): Promise<number> {
  let sealed = 0;
  for (const row of await listUnsealedSourceUrls(db)) {
    const { display, secrets } = splitUrlSecrets(row.source_url);
    if (!secrets.length) continue;
    if (await sealSourceUrl(db, row.id, row.source_url, display, sealUrl(row.source_url, secret))) sealed++;
  }
  return sealed;
}
