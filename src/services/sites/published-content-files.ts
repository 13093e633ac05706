/**
 * File URLs given to a site token: they do not expire while the revision is published. A read
 * through a site token gets, instead of the usual expiring signed link (src/content/present.ts
 * fileDownloadUrl), a link that names the site, space and revision, signed without an expiry:
 * at download the site must still be published and show that space at that revision, and the
 * revision must hold the file. Once a newer revision is published (or the site unpublished), the
 * link answers 410 and the renderer reads the revision again for fresh links.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import { forbidden, gone, isDomainError, notFound } from '../../core/errors.js';
import { signBlob } from '../../content/present.js';
import { blobKeyFor } from '../../content/files.js';
import { publishedSite, snapshotOf } from './reader.js';

export interface SiteFileRef {
  siteId: string;
  spaceId: string;
  revisionId: string;
  sha256: string;
}

function sign(secret: string, r: SiteFileRef, name: string, type: string): string {
  return createHmac('sha256', secret)
    .update(`site-file\n${r.siteId}\n${r.spaceId}\n${r.revisionId}\n${r.sha256}\n${name}\n${type}`)
    .digest('base64url')
    .slice(0, 32);
}

export function siteFileUrl(app: AppContext, r: SiteFileRef, name: string, type: string): string {
  const q = new URLSearchParams({ name, type, sig: sign(app.secret, r, name, type) });
  return `${app.config.publicUrl}/files/site/${r.siteId}/${r.spaceId}/${r.revisionId}/${r.sha256}?${q}`;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const patterns = new WeakMap<AppContext, RegExp>();

/**
 * A JSON answer with every expiring file link of ours (validly signed) replaced by the site's
 * non-expiring link for this revision. Links of other origins, and strings that only look like
 * ours, are left as they are.
 */
export function withSiteFileUrls(app: AppContext, json: string, site: string, spaceId: string, revisionId: string): string {
  let re = patterns.get(app);
  if (!re) patterns.set(app, (re = new RegExp(`${escapeRe(app.config.publicUrl)}/files/([0-9a-f]{64})\\?([^"\\s\\\\]{1,2000})`, 'g')));
  if (!json.includes('/files/')) return json;
  return json.replace(re, (whole, sha256: string, query: string) => {
    const q = new URLSearchParams(query);
    const name = q.get('name');
    const type = q.get('type');
    const exp = Number(q.get('exp'));
    const sig = q.get('sig') ?? '';
    if (name === null || type === null || !Number.isFinite(exp)) return whole;
    const expected = Buffer.from(signBlob(app.secret, sha256, name, type, exp));
    if (expected.length !== Buffer.byteLength(sig) || !timingSafeEqual(expected, Buffer.from(sig))) return whole;
    return siteFileUrl(app, { siteId: site, spaceId, revisionId, sha256 }, name, type);
  });
}

export interface OpenedSiteFile {
  stream: Readable;
  size: number;
  name: string;
  contentType: string;
}

/** The bytes behind a site file link, checked against the site's publication now. */
export async function openSiteFile(
  app: AppContext,
  r: SiteFileRef,
  q: { name: string; type: string; sig: string },
): Promise<OpenedSiteFile> {
  const expected = Buffer.from(sign(app.secret, r, q.name, q.type));
  const given = Buffer.from(q.sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    throw forbidden('Invalid file link: the signature does not match');
  const stale = () => gone('This file link is no longer published (the site changed); read the revision again for fresh links');
  let site;
  try {
    site = await publishedSite(app, r.siteId);
  } catch (err) {
    if (isDomainError(err) && err.kind === 'not-found') throw stale();
    throw err;
  }
  const space = site.liveSpaces?.get(r.spaceId);
  if (!space || space.revision_id !== r.revisionId) throw stale();
  const snapshot = await snapshotOf(app, space);
  if (!snapshot.files.some((f) => f.sha256 === r.sha256)) throw notFound('Not found');
  const stored = await app.blobs.getStream(blobKeyFor(r.sha256));
  if (!stored) throw notFound('Not found');
  return { stream: stored.stream, size: stored.size, name: q.name, contentType: q.type };
}
