/**
 * Share links of a site: each carries a random 256-bit key, shown only inside `urls.published`
 * (`?share=<key>`). The key is stored as its SHA-256 (how a request's key is checked: a lookup by
 * hash, never a comparison with a clear value) and sealed with the server secret (so responses can
 * rebuild the URL). Deactivating or deleting a link takes effect on the next request: nothing is
 * cached. Site admins only.
 */
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Principal } from '../../auth/principal.js';
import type { Queryable } from '../../db/pool.js';
import * as repo from '../../db/repos/site-share-links.js';
import { bumpSiteVersion, type SiteRow } from '../../db/repos/sites.js';
import { requireSite } from '../../policies/sites.js';
import { notFound } from '../../core/errors.js';
import { pageInMemory } from '../../core/pagination.js';
import { toShareLink } from '../../presenters/sites.js';
import { newId, sha256Hex } from '../../util/ids.js';
import { openText, sealText } from '../../util/seal.js';

const PURPOSE = 'site-share-link';
const MAX_KEY_LENGTH = 256;

/** True when `key` opens an active share link of the site (read on every call: no cache). */
export async function validShareKey(db: Queryable, siteId: string, key: string): Promise<boolean> {
  if (!key || key.length > MAX_KEY_LENGTH) return false;
  return (await repo.findActiveShareLink(db, siteId, sha256Hex(key))) !== null;
}

function present(app: AppContext, site: SiteRow, row: repo.ShareLinkRow) {
  return toShareLink(app, site, row, openText(row.key_sealed, app.secret, PURPOSE));
}

export async function listShareLinks(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  q: { page?: string; limit?: number; search?: string },
) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  let rows = await repo.listShareLinks(app.db, siteId);
  if (q.search) {
    const needle = q.search.toLowerCase();
    rows = rows.filter((r) => r.name.toLowerCase().includes(needle) || openText(r.key_sealed, app.secret, PURPOSE) === q.search);
  }
  return pageInMemory(
    rows,
    q,
    (r) => [r.created_key, r.id],
    (r) => present(app, site, r),
  );
}

export async function createShareLink(app: AppContext, p: Principal, orgId: string, siteId: string, body: { name: string }) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  const key = randomBytes(32).toString('base64url');
  const id = newId();
  await repo.insertShareLink(app.db, {
    id,
    siteId,
    name: body.name,
    keyHash: sha256Hex(key),
    keySealed: sealText(key, app.secret, PURPOSE),
  });
  return present(app, site, (await repo.getShareLink(app.db, siteId, id))!);
}

export async function updateShareLink(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  linkId: string,
  body: { name?: string; active?: boolean },
) {
  const { site } = await requireSite(app.db, p, orgId, siteId, 'admin');
  if (!(await repo.getShareLink(app.db, siteId, linkId))) throw notFound(`Share link "${linkId}" not found`);
  await repo.updateShareLink(app.db, linkId, body);
  await bumpSiteVersion(app.db, siteId);
  return present(app, site, (await repo.getShareLink(app.db, siteId, linkId))!);
}

/** 204 whether or not the link existed. */
export async function deleteShareLink(app: AppContext, p: Principal, orgId: string, siteId: string, linkId: string) {
  await requireSite(app.db, p, orgId, siteId, 'admin');
  await repo.deleteShareLink(app.db, siteId, linkId);
  await bumpSiteVersion(app.db, siteId);
}
