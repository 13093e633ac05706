// Images of other origins that content shows (a badge, a screenshot hosted elsewhere), fetched by
// the server for readers: only URLs signed by imageProxyUrl, through the guarded fetch (no private
// or loopback addresses unless configured), image types only, size and time bounded, kept in a
// bounded in-process cache.
import { timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { AppContext } from '../context.js';
import { DomainError, forbidden, upstream } from '../core/errors.js';
import { signImageUrl } from '../content/present.js';
import { FetchFailedError, FetchTimeoutError, safeFetch } from '../net/safe-fetch.js';

/** Largest image the proxy fetches. */
const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp|avif|svg\+xml|x-icon|vnd\.microsoft\.icon|bmp)$/;

export interface ProxiedImage {
  body: Buffer;
  contentType: string;
}

const cache = new LRUCache<string, ProxiedImage>({
  maxSize: 64 * 1024 * 1024,
  sizeCalculation: (v) => Math.max(1, v.body.length),
  ttl: 60 * 60 * 1000,
});
const pending = new Map<string, Promise<ProxiedImage>>();

export async function proxiedImage(app: AppContext, url: string, sig: string): Promise<ProxiedImage> {
  const expected = Buffer.from(signImageUrl(app.secret, url));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    throw forbidden('Invalid image link: the signature does not match');
  const hit = cache.get(url);
  if (hit) return hit;
  let run = pending.get(url);
  if (!run) {
    run = fetchImage(app, url).finally(() => pending.delete(url));
    pending.set(url, run);
  }
  return run;
}

async function fetchImage(app: AppContext, url: string): Promise<ProxiedImage> {
  let host = 'the image host';
  try {
    host = new URL(url).host;
    const r = await safeFetch(url, {
      timeoutMs: app.config.fetch.timeoutMs,
      maxBytes: Math.min(MAX_IMAGE_BYTES, app.config.fetch.maxBytes),
      allowPrivate: app.config.fetch.allowPrivate,
      headers: { accept: 'image/*' },
    });
    const contentType = String(r.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    if (!IMAGE_TYPES.test(contentType)) throw upstream(`${host} did not answer with an image (${contentType || 'no type'})`);
    const image = { body: r.body, contentType };
    cache.set(url, image);
    return image;
  } catch (err) {
    if (err instanceof DomainError) throw err;
    if (err instanceof FetchTimeoutError || err instanceof FetchFailedError) throw upstream(err.message);
    throw upstream(`Could not fetch the image from ${host}`);
  }
}
