// Breadth-first crawl of a website for an import: the start page, then the pages it links to
// inside the scope (src/import/scope.ts), level by level, until `maxPages` pages are discovered
// or the time budget runs out. Every request goes through safeFetch (time, size and redirect
// limits; private addresses refused unless ALLOW_PRIVATE_FETCH).
//
// - Order: pages are numbered in the order they are discovered (a page's links in document
//   order, its navigation included). Fetches run a few at a time, but links are collected page by
//   page in queue order, so the order is the one of a sequential breadth-first walk.
// - robots.txt: the `*` group of the origin's robots.txt is honoured for discovered pages. The
//   start page is fetched regardless: the user named it, as a browser would.
// - A start page that cannot be fetched (network error, refused address, HTTP error, not HTML)
//   fails the import (StartPageError). Any other page that fails is skipped and reported.
// - A page redirected to one already crawled is the same page (its URL becomes an alias).
import { safeFetch, FetchFailedError, FetchTimeoutError, type SafeFetchResult } from '../net/safe-fetch.js';
import { htmlTooDeep, MAX_HTML_DEPTH, parsePage, type ParsedPage } from './html.js';
import { inScope, looksLikePage, pageKey, scopeOf, type CrawlScope } from './scope.js';
import { parseRobots, ALLOW_ALL, type RobotsRules } from './robots.js';
import { decodeOrKeep } from '../util/uri.js';

const USER_AGENT = 'docsplatform-import/1 (+website import)';

interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  allowPrivate: boolean;
}

interface CrawlOptions {
  maxPages: number;
  /** Epoch milliseconds after which no new request starts. */
  deadline: number;
  fetch: FetchLimits;
  /** Requests at once (default 4). */
  concurrency?: number;
  progress?: (fetched: number, discovered: number) => Promise<void>;
}

interface CrawledPage {
  key: string;
  url: URL;
  parsed: ParsedPage;
}

interface CrawlResult {
  scope: CrawlScope;
  startKey: string;
  /** Pages fetched and parsed, in discovery order. */
  pages: CrawledPage[];
  /** Other keys naming a crawled page (a redirect, the start URL as typed), to its key. */
  aliases: Map<string, string>;
  /** Distinct pages discovered within the limits (crawled, failed, or left when time ran out). */
  discovered: number;
  skipped: { url: string; reason: string }[];
  /** Links not followed because robots.txt disallows them. */
  disallowed: string[];
  /** True when the page limit or the time budget stopped the crawl early. */
  truncated: boolean;
}

/** The start page cannot be imported: the import fails with this message. */
export class StartPageError extends Error {}

class NotHtmlError extends Error {}

const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/i;

function reasonOf(err: unknown): string {
  if (err instanceof FetchFailedError || err instanceof FetchTimeoutError || err instanceof NotHtmlError) return err.message;
  return `unexpected error: ${(err as Error)?.message ?? String(err)}`;
}

/** Decode a page with the charset its headers or `<meta charset>` name (UTF-8 by default). */
function decode(res: SafeFetchResult, contentType: string): string {
  let charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1];
  if (!charset) charset = /<meta[^>]+charset=["']?([\w-]+)/i.exec(res.body.subarray(0, 2048).toString('latin1'))?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(res.body);
  } catch {
    return new TextDecoder('utf-8').decode(res.body);
  }
}

async function fetchHtml(url: URL, limits: FetchLimits): Promise<{ url: URL; html: string }> {
  const res = await safeFetch(url.href, {
    ...limits,
    headers: { 'user-agent': USER_AGENT, accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1' },
  });
  const type = String(res.headers['content-type'] ?? '');
  const sniffed = !type && /^\s*</.test(res.body.subarray(0, 512).toString('latin1'));
  if (!HTML_TYPES.test(type) && !sniffed) throw new NotHtmlError(`${url.href} is not an HTML page (content type "${type || 'none'}")`);
  return { url: new URL(res.url), html: decode(res, type) };
}

async function fetchRobots(scope: CrawlScope, limits: FetchLimits): Promise<RobotsRules> {
  try {
    const res = await safeFetch(`${scope.origin}/robots.txt`, {
      ...limits,
      maxBytes: Math.min(limits.maxBytes, 512 * 1024),
      headers: { 'user-agent': USER_AGENT },
    });
    return parseRobots(res.body.toString('utf8'));
  } catch {
    return ALLOW_ALL; // no robots.txt (404), or unreachable: nothing is disallowed
  }
}

export async function crawl(startUrl: string, o: CrawlOptions): Promise<CrawlResult> {
  const requested = new URL(startUrl);
  requested.hash = '';
  let start: { url: URL; html: string };
  try {
    start = await fetchHtml(requested, o.fetch);
  } catch (err) {
    throw new StartPageError(`Could not import ${requested.href}: ${reasonOf(err)}`);
  }
  const scope = scopeOf(start.url);
  const robots = await fetchRobots(scope, o.fetch);

  const startKey = pageKey(start.url);
  const queue: { key: string; url: URL }[] = [{ key: startKey, url: start.url }];
  const seen = new Set<string>([startKey]);
  const aliases = new Map<string, string>();
  const requestedKey = pageKey(requested);
  if (requestedKey !== startKey) {
    aliases.set(requestedKey, startKey);
    seen.add(requestedKey);
  }
  const crawled = new Map<string, CrawledPage>();
  const pages: CrawledPage[] = [];
  const skipped: CrawlResult['skipped'] = [];
  const disallowed: string[] = [];
  let duplicates = 0;
  let truncated = false;

  const follow = (page: ParsedPage) => {
    for (const link of page.links) {
      if (!looksLikePage(link) || !inScope(scope, link)) continue;
      const u = new URL(link.href);
      u.hash = '';
      u.search = '';
      const key = pageKey(u);
      if (seen.has(key)) continue;
      seen.add(key);
      if (!robots.allows(u.pathname)) {
        disallowed.push(u.href);
        continue;
      }
      if (queue.length - duplicates >= o.maxPages) {
        truncated = true;
        continue;
      }
      queue.push({ key, url: u });
    }
  };

  const accept = (entry: { key: string; url: URL }, got: { url: URL; html: string }) => {
    let key = entry.key;
    if (got.url.href !== entry.url.href) {
      // Redirected: the page is named by where it ended up.
      if (!inScope(scope, got.url)) {
        skipped.push({ url: entry.url.href, reason: `redirected outside the imported site to ${got.url.href}` });
        return;
      }
      const finalKey = pageKey(got.url);
      if (finalKey !== key) {
        if (crawled.has(finalKey)) {
          aliases.set(key, finalKey);
          duplicates++;
          return;
        }
        aliases.set(key, finalKey);
        seen.add(finalKey);
        key = finalKey;
      }
    }
    if (crawled.has(key)) {
      duplicates++;
      return;
    }
    if (htmlTooDeep(got.html)) {
      const reason = `its elements nest deeper than ${MAX_HTML_DEPTH} levels`;
      if (entry === queue[0]) throw new StartPageError(`Could not import ${got.url.href}: ${reason}`);
      skipped.push({ url: entry.url.href, reason });
      return;
    }
    const parsed = parsePage(got.html, got.url);
    const page = { key, url: got.url, parsed };
    crawled.set(key, page);
    pages.push(page);
    follow(parsed);
  };

  accept(queue[0], start);
  const concurrency = Math.max(1, o.concurrency ?? 4);
  let next = 1;
  while (next < queue.length) {
    if (Date.now() >= o.deadline) {
      truncated = true;
      break;
    }
    const batch = queue.slice(next, next + concurrency);
    next += batch.length;
    const results = await Promise.all(
      batch.map((entry) =>
        fetchHtml(entry.url, o.fetch).then(
          (got) => ({ ok: true as const, got }),
          (err: unknown) => ({ ok: false as const, reason: reasonOf(err) }),
        ),
      ),
    );
    batch.forEach((entry, i) => {
      const r = results[i];
      if (r.ok) accept(entry, r.got);
      else skipped.push({ url: entry.url.href, reason: r.reason });
    });
    await o.progress?.(next, queue.length - duplicates);
  }
  return { scope, startKey, pages, aliases, discovered: queue.length - duplicates, skipped, disallowed, truncated };
}

interface DownloadedImage {
  url: string;
  name: string;
  contentType: string;
  bytes: Buffer;
}

/** Most images one import downloads, and their total size: an import is not a mirror. */
const MAX_IMAGES = 1000;
const MAX_IMAGE_BYTES_TOTAL = 200 * 1024 * 1024;

const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  avif: 'image/avif',
  ico: 'image/x-icon',
  bmp: 'image/bmp',
};

function imageName(u: URL, contentType: string): string {
  let last = decodeOrKeep(u.pathname.split('/').pop() ?? '');
  last = last.replace(/[\\/\0]/g, '').slice(0, 200);
  if (last) return last;
  const ext = Object.entries(IMAGE_TYPES).find(([, t]) => t === contentType)?.[0];
  return ext ? `image.${ext}` : 'image';
}

/**
 * Download images (same-origin, checked by the caller), a few at a time, each within FETCH limits,
 * until the deadline or the totals above. An image that fails or is not an image is left out (its
 * link stays an absolute URL).
 */
export async function downloadImages(
  urls: URL[],
  o: { deadline: number; fetch: FetchLimits; concurrency?: number; progress?: (done: number, total: number) => Promise<void> },
): Promise<{ images: Map<string, DownloadedImage>; skipped: { url: string; reason: string }[] }> {
  const images = new Map<string, DownloadedImage>();
  const skipped: { url: string; reason: string }[] = [];
  const list = urls.slice(0, MAX_IMAGES);
  let total = 0;
  const concurrency = Math.max(1, o.concurrency ?? 4);
  for (let i = 0; i < list.length; i += concurrency) {
    if (Date.now() >= o.deadline || total >= MAX_IMAGE_BYTES_TOTAL) break;
    const batch = list.slice(i, i + concurrency);
    const results = await Promise.all(
      batch.map((u) =>
        safeFetch(u.href, { ...o.fetch, headers: { 'user-agent': USER_AGENT, accept: 'image/*' } }).then(
          (res) => ({ ok: true as const, res }),
          (err: unknown) => ({ ok: false as const, reason: reasonOf(err) }),
        ),
      ),
    );
    batch.forEach((u, j) => {
      const r = results[j];
      if (!r.ok) return void skipped.push({ url: u.href, reason: r.reason });
      const header = String(r.res.headers['content-type'] ?? '')
        .split(';')[0]
        .trim()
        .toLowerCase();
      const byExt = IMAGE_TYPES[(/\.([a-z0-9]+)$/i.exec(u.pathname)?.[1] ?? '').toLowerCase()];
      const contentType = header.startsWith('image/') ? header : header === '' || header === 'application/octet-stream' ? byExt : undefined;
      if (!contentType) return void skipped.push({ url: u.href, reason: `not an image (content type "${header}")` });
      if (total + r.res.body.length > MAX_IMAGE_BYTES_TOTAL)
        return void skipped.push({ url: u.href, reason: 'image budget of the import exceeded' });
      total += r.res.body.length;
      images.set(u.href, { url: u.href, name: imageName(u, contentType), contentType, bytes: r.res.body });
    });
    await o.progress?.(Math.min(i + concurrency, list.length), list.length);
  }
  return { images, skipped };
}
