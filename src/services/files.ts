import { createHash, timingSafeEqual } from 'node:crypto';
import { imageSize } from 'image-size';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/pool.js';
import type { Reply } from '../http/route.js';
import { ApiError, notFound } from '../core/errors.js';
import { signBlob } from '../content/present.js';

export function blobKeyFor(sha256: string) {
  return `files/sha256/${sha256}`;
}

export interface StoredBytes {
  blobKey: string;
  sha256: string;
  size: number;
  dimensions?: { width: number; height: number };
}

/**
 * Store file bytes for a space, content-addressed: identical bytes are stored once and shared by
 * every space (and duplicate) that references them. Runs inside the caller's transaction and holds
 * a per-key lock so the purge job cannot delete bytes that are being referenced again.
 */
export async function storeFileBytes(app: AppContext, c: Queryable, spaceId: string, bytes: Buffer, contentType: string): Promise<StoredBytes> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const blobKey = blobKeyFor(sha256);
  await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [blobKey]);
  const { rows } = await c.query('SELECT 1 FROM blobs WHERE key = $1', [blobKey]);
  if (!rows.length || !(await app.blobs.head(blobKey))) {
    await app.blobs.put(blobKey, bytes, { contentType });
    await c.query('INSERT INTO blobs (key, size, sha256) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING', [blobKey, bytes.length, sha256]);
  }
  await c.query('INSERT INTO space_blobs (space_id, blob_key) VALUES ($1, $2) ON CONFLICT DO NOTHING', [spaceId, blobKey]);
  return { blobKey, sha256, size: bytes.length, dimensions: dimensionsOf(bytes, contentType) };
}

function dimensionsOf(bytes: Buffer, contentType: string): { width: number; height: number } | undefined {
  if (!contentType.startsWith('image/')) return undefined;
  try {
    const d = imageSize(bytes);
    return d.width && d.height ? { width: d.width, height: d.height } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Serve stored bytes through a signed URL (no token: browsers load images from downloadURL).
 * The signature covers the hash, name, type and expiry: a bad one is a 403, an expired link (or
 * one from before links expired, without `exp`) a 410 telling to read the file again.
 * User-supplied content is sandboxed so an uploaded HTML or SVG file cannot run script on this origin.
 */
export async function serveSignedFile(
  app: AppContext,
  sha256: string,
  q: { name: string; type: string; exp?: number; sig: string },
  nowMs = Date.now(),
): Promise<Reply> {
  if (q.exp === undefined) throw new ApiError(410, 'This file link has expired (it has no expiry time); read the file again for a fresh downloadURL');
  const expected = Buffer.from(signBlob(app.secret, sha256, q.name, q.type, q.exp));
  const given = Buffer.from(q.sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw new ApiError(403, 'Invalid file link: the signature does not match');
  const remaining = q.exp - Math.floor(nowMs / 1000);
  if (remaining <= 0) {
    throw new ApiError(410, `This file link expired at ${new Date(q.exp * 1000).toISOString()}; read the file again for a fresh downloadURL`);
  }
  const stored = await app.blobs.getStream(blobKeyFor(sha256));
  if (!stored) throw notFound('Not found');
  return {
    status: 200,
    stream: stored.stream,
    headers: {
      'content-type': q.type,
      'content-length': String(stored.size),
      'content-disposition': `inline; filename*=UTF-8''${encodeURIComponent(q.name)}`,
      // The bytes under this URL never change, but the URL stops working at `exp`: cache until then.
      'cache-control': `private, max-age=${remaining}, immutable`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox",
    },
  };
}
