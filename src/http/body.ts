import type { IncomingMessage } from 'node:http';
import { invalid, limitExceeded } from '../core/errors.js';
import { HttpError } from './errors.js';

/**
 * Read a request body's bytes, refusing more than `limit` bytes (413: `what` names it) before
 * buffering it all (a declared length over it is refused before reading).
 */
export async function readRawBody(req: IncomingMessage, limit: number, what = 'Request body'): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    req.resume();
    throw limitExceeded(`${what} exceeds the limit of ${limit} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume();
      throw limitExceeded(`${what} exceeds the limit of ${limit} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Read a JSON request body, refusing more than `limit` bytes (413) before buffering it all.
 * An empty body reads as `undefined`; anything but JSON is a 400 (or 415 for another media type).
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const body = await readRawBody(req, limit);
  if (body.length === 0) return undefined;
  const type = String(req.headers['content-type'] ?? 'application/json').toLowerCase();
  if (!/^application\/([\w.+-]*\+)?json\b/.test(type)) {
    throw new HttpError(415, `Unsupported Content-Type "${type}": send application/json`);
  }
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw invalid(`Request body is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * Read an `application/x-www-form-urlencoded` body (an HTML form's POST), refusing more than
 * `limit` bytes (413); anything else is a 415.
 */
export async function readFormBody(req: IncomingMessage, limit: number): Promise<URLSearchParams> {
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  if (!type.startsWith('application/x-www-form-urlencoded')) {
    req.resume();
    throw new HttpError(415, `Unsupported Content-Type "${type}": send application/x-www-form-urlencoded`);
  }
  return new URLSearchParams((await readRawBody(req, limit)).toString('utf8'));
}
