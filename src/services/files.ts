import { timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { AppContext } from '../context.js';
import { forbidden, gone, notFound } from '../core/errors.js';
import { signBlob } from '../content/present.js';
import { blobKeyFor } from '../content/files.js';

/** Stored bytes behind a valid signed link, with what the link says about them. */
interface SignedFile {
  stream: Readable;
  size: number;
  name: string;
  contentType: string;
  /** Seconds until the link expires. */
  remainingSeconds: number;
}

/**
 * Open stored bytes through a signed URL (no token: browsers load images from downloadURL).
 * The signature covers the hash, name, type and expiry: a bad one is a 403, an expired link (or
 * one from before links expired, without `exp`) a 410 telling to read the file again.
 */
export async function openSignedFile(
  app: AppContext,
  sha256: string,
  q: { name: string; type: string; exp?: number; sig: string },
  nowMs = Date.now(),
): Promise<SignedFile> {
  if (q.exp === undefined) throw gone('This file link has expired (it has no expiry time); read the file again for a fresh downloadURL');
  const expected = Buffer.from(signBlob(app.secret, sha256, q.name, q.type, q.exp));
  const given = Buffer.from(q.sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    throw forbidden('Invalid file link: the signature does not match');
  const remaining = q.exp - Math.floor(nowMs / 1000);
  if (remaining <= 0) {
    throw gone(`This file link expired at ${new Date(q.exp * 1000).toISOString()}; read the file again for a fresh downloadURL`);
  }
  const stored = await app.blobs.getStream(blobKeyFor(sha256));
  if (!stored) throw notFound('Not found');
  return { stream: stored.stream, size: stored.size, name: q.name, contentType: q.type, remainingSeconds: remaining };
}
