// URLs of content that engines (search, rendering) and presenters share: a page in the app, and
// the signed download URL of a file's stored bytes. The API objects themselves are built in
// src/presenters/content.ts.
import { createHmac } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { FileNode } from './types.js';

export function pageAppUrl(app: AppContext, spaceId: string, page: { id: string }) {
  return `${app.config.publicUrl}/app/s/${spaceId}/page/${page.id}`;
}

/**
 * Signed, token-free download URL of a file's stored bytes (browsers load images from it), valid
 * for FILE_URL_TTL_SECONDS. The expiry is rounded up to a tenth of that lifetime, so the URL of a
 * file stays the same for a while (browsers and proxies can cache it) and lives between one and
 * 1.1 lifetimes.
 */
export function fileDownloadUrl(
  app: AppContext,
  f: Pick<FileNode, 'blobKey' | 'name' | 'contentType' | 'sha256'>,
  nowMs = Date.now(),
): string {
  const ttl = app.config.fileUrlTtlSeconds;
  const step = Math.max(1, Math.ceil(ttl / 10));
  const exp = Math.ceil((Math.floor(nowMs / 1000) + ttl) / step) * step;
  const params = new URLSearchParams({ name: f.name, type: f.contentType, exp: String(exp) });
  params.set('sig', signBlob(app.secret, f.sha256, f.name, f.contentType, exp));
  return `${app.config.publicUrl}/files/${f.sha256}?${params}`;
}

/**
 * Where readers load an image the content links from another origin: this server fetches it
 * (src/services/image-proxy.ts), so pages keep a strict same-origin CSP and readers' browsers talk
 * to no third party. Signed, so the route only ever fetches URLs that content names.
 */
export function imageProxyUrl(app: AppContext, url: string): string {
  const params = new URLSearchParams({ url, sig: signImageUrl(app.secret, url) });
  return `${app.config.publicUrl}/images/proxy?${params}`;
}

export function signImageUrl(secret: string, url: string): string {
  return createHmac('sha256', secret).update(`image\n${url}`).digest('base64url').slice(0, 32);
}

export function signBlob(secret: string, sha256: string, name: string, contentType: string, exp: number): string {
  return createHmac('sha256', secret).update(`file\n${sha256}\n${name}\n${contentType}\n${exp}`).digest('base64url').slice(0, 32);
}
