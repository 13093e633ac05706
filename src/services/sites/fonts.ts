/**
 * Custom fonts (issue 29 item 2) and the signed uploads their files come through, as the 0.202.0
 * description chains them: generateStorageUploadURL announces a file (name, type, size) and gets
 * a URL signed with the server secret and expiring after UPLOAD_TTL_SECONDS; the bytes are PUT
 * there with the announced content type; createCustomFont / updateCustomFont then name the
 * upload's `key` per weight. A font file must be what its bytes say (woff, woff2, ttf or otf by
 * their magic bytes, agreeing with the announced type) and at most FONT_MAX_BYTES. Files live in
 * the blob store like other files; the fonts are served to anyone at `/fonts/{id}/{weight}` and by
 * each site of the organization on its own base (`~site/fonts/...`), where the site stylesheet's
 * `@font-face` rules load them.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import type { Principal } from '../../auth/principal.js';
import * as repo from '../../db/repos/custom-fonts.js';
import { requireOrg } from '../../policies/organizations.js';
import { DomainError, forbidden, gone, invalid, notFound, conflict } from '../../core/errors.js';
import { newId } from '../../util/ids.js';
import { toCustomFont } from '../../presenters/site-settings.js';

export const FONT_MAX_BYTES = 5 * 1024 * 1024;
export const UPLOAD_TTL_SECONDS = 15 * 60;
export const MAX_PENDING_UPLOADS = 100;
export const MAX_FONTS = 50;
export const MAX_FACES = 20;

type FontFormat = 'woff' | 'woff2' | 'ttf' | 'otf';

/** Announced content types and the format each stands for. */
const TYPES: Record<string, FontFormat> = {
  'font/woff': 'woff',
  'application/font-woff': 'woff',
  'font/woff2': 'woff2',
  'font/ttf': 'ttf',
  'font/sfnt': 'ttf',
  'application/x-font-ttf': 'ttf',
  'font/otf': 'otf',
  'application/x-font-opentype': 'otf',
};
const SERVED_TYPE: Record<FontFormat, string> = { woff: 'font/woff', woff2: 'font/woff2', ttf: 'font/ttf', otf: 'font/otf' };

/** The format the bytes are, by their first four bytes; null when they are no font. */
export function fontFormatOf(bytes: Buffer): FontFormat | null {
  if (bytes.length < 12) return null;
  const tag = bytes.subarray(0, 4).toString('latin1');
  if (tag === 'wOFF') return 'woff';
  if (tag === 'wOF2') return 'woff2';
  if (tag === 'OTTO') return 'otf';
  if (tag === 'true' || bytes.readUInt32BE(0) === 0x00010000) return 'ttf';
  return null;
}

const mediaType = (t: string) => t.split(';')[0].trim().toLowerCase();

function sign(secret: string, id: string, type: string, size: number, exp: number): string {
  return createHmac('sha256', secret).update(`upload\n${id}\n${type}\n${size}\n${exp}`).digest('base64url');
}

// ---- generateStorageUploadURL ------------------------------------------------------------------

export async function createUploadUrl(
  app: AppContext,
  p: Principal,
  orgId: string,
  body: { file: { name: string; type: string; size: number }; kind: string },
  nowMs = Date.now(),
) {
  await requireOrg(app.db, p, orgId, 'admin');
  if (body.kind !== 'customization_font')
    throw invalid(`Invalid request: body.kind: "${body.kind}" uploads are not supported by this server; only customization_font`);
  const type = mediaType(body.file.type);
  if (!TYPES[type])
    throw invalid(`Invalid request: body.file.type: "${body.file.type}" is not a font type (${Object.keys(TYPES).join(', ')})`);
  const size = body.file.size;
  if (!Number.isInteger(size) || size < 12) throw invalid('Invalid request: body.file.size: the size in bytes of a font file');
  if (size > FONT_MAX_BYTES) throw invalid(`Invalid request: body.file.size: a font file is at most ${FONT_MAX_BYTES} bytes`);
  if ((await repo.countPendingUploads(app.db, orgId)) >= MAX_PENDING_UPLOADS)
    throw invalid(
      `Invalid request: at most ${MAX_PENDING_UPLOADS} uploads may wait for their bytes; try again in ${UPLOAD_TTL_SECONDS / 60} minutes`,
    );
  const id = newId();
  const safeName = body.file.name.replace(/[^\w.-]+/g, '_').slice(0, 100) || 'font';
  const key = `fonts/${orgId}/${id}/${safeName}`;
  const exp = Math.floor(nowMs / 1000) + UPLOAD_TTL_SECONDS;
  await repo.insertUpload(app.db, {
    id,
    orgId,
    kind: body.kind,
    name: body.file.name.slice(0, 256),
    contentType: type,
    size,
    key,
    createdBy: p.userId,
    expiresAt: new Date(exp * 1000),
  });
  const q = new URLSearchParams({ exp: String(exp), sig: sign(app.secret, id, type, size, exp) });
  return { object: 'storage-signed-url' as const, url: `${app.config.publicUrl}/v1/storage/uploads/${id}?${q}`, key };
}

/**
 * The PUT to a signed upload URL: the signature and expiry first (403, 410), then the content
 * type and size announced (400), then the bytes (a font by their magic bytes, 400). Once only (409).
 */
export async function receiveUpload(
  app: AppContext,
  id: string,
  q: { exp: number; sig: string },
  contentType: string,
  bytes: Buffer,
  nowMs = Date.now(),
): Promise<void> {
  const u = await repo.getUpload(app.db, id);
  if (!u) throw notFound('Not found');
  const expected = Buffer.from(sign(app.secret, id, u.content_type, Number(u.size), q.exp));
  const given = Buffer.from(q.sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    throw forbidden('Invalid upload URL: the signature does not match');
  if (q.exp * 1000 <= nowMs || u.expires_at.getTime() <= nowMs) throw gone('This upload URL has expired; ask for a new one');
  if (u.uploaded_at) throw conflict('The bytes of this upload were already received');
  if (mediaType(contentType) !== u.content_type)
    throw invalid(`Invalid upload: Content-Type "${contentType}" is not the type announced for this upload (${u.content_type})`);
  if (bytes.length !== Number(u.size)) throw invalid(`Invalid upload: ${bytes.length} bytes received, ${u.size} announced`);
  const format = fontFormatOf(bytes);
  if (!format) throw invalid('Invalid upload: the file is not a font (woff, woff2, ttf or otf)');
  if (format !== TYPES[u.content_type] && !(format === 'ttf' && TYPES[u.content_type] === 'otf'))
    throw invalid(`Invalid upload: the file is a ${format} font, not the ${TYPES[u.content_type]} announced`);
  const blobKey = `uploads/${u.organization_id}/${id}`;
  await app.blobs.put(blobKey, bytes, { contentType: SERVED_TYPE[format] });
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (!(await repo.completeUpload(app.db, id, { blobKey, sha256, format })))
    throw conflict('The bytes of this upload were already received');
}

// ---- Fonts --------------------------------------------------------------------------------------

type FaceInput = { weight: number; storageKey: string | null };

async function facesFor(app: AppContext, orgId: string, faces: FaceInput[]): Promise<repo.FontFaceRow[]> {
  const keys = faces.filter((f) => f.storageKey !== null).map((f) => f.storageKey!);
  const uploads = new Map((await repo.uploadsByKeys(app.db, orgId, keys)).map((u) => [u.key, u]));
  const out: repo.FontFaceRow[] = [];
  for (const [i, f] of faces.entries()) {
    if (f.storageKey === null) continue;
    const u = uploads.get(f.storageKey);
    if (!u || u.kind !== 'customization_font')
      throw invalid(`Invalid request: body.fontFaces[${i}].storageKey: "${f.storageKey}" is no font uploaded to this organization`);
    if (!u.uploaded_at || !u.blob_key || !u.format)
      throw invalid(`Invalid request: body.fontFaces[${i}].storageKey: the bytes of "${f.storageKey}" were not uploaded yet`);
    out.push({ weight: f.weight, key: u.key, blobKey: u.blob_key, format: u.format, contentType: SERVED_TYPE[u.format as FontFormat] });
  }
  return out;
}

function checkFaces(faces: { weight: number }[]) {
  if (faces.length > MAX_FACES) throw invalid(`Invalid request: body.fontFaces: at most ${MAX_FACES} font faces`);
  const weights = faces.map((f) => f.weight);
  if (new Set(weights).size !== weights.length) throw invalid('Invalid request: body.fontFaces: one face per weight');
}

/**
 * A font without the weight the description requires (400): an invalid request to a job, a 412 at
 * the HTTP edge (src/routes/sites/fonts.ts), as the description answers it.
 */
export class MissingFontWeight extends DomainError {
  constructor() {
    super('invalid', 'Invalid request: body.fontFaces: a font needs a face of weight 400 (regular)');
  }
}

function requireRegular(faces: { weight: number }[]) {
  if (!faces.some((f) => f.weight === 400)) throw new MissingFontWeight();
}

async function orgFont(app: AppContext, orgId: string, fontId: string) {
  const font = await repo.getFont(app.db, fontId);
  if (!font || font.organization_id !== orgId) throw notFound(`Font "${fontId}" not found`);
  return font;
}

export async function listFonts(app: AppContext, p: Principal, orgId: string) {
  const { permissions } = await requireOrg(app.db, p, orgId, 'view');
  const items = (await repo.listFonts(app.db, orgId)).map((f) => toCustomFont(app.config.publicUrl, f, permissions.admin));
  return { items, count: items.length };
}

export async function getFont(app: AppContext, p: Principal, orgId: string, fontId: string) {
  const { permissions } = await requireOrg(app.db, p, orgId, 'view');
  return toCustomFont(app.config.publicUrl, await orgFont(app, orgId, fontId), permissions.admin);
}

export async function createFont(
  app: AppContext,
  p: Principal,
  orgId: string,
  body: { fontFamily: string; fontFaces: { weight: number; storageKey: string }[] },
) {
  await requireOrg(app.db, p, orgId, 'admin');
  checkFaces(body.fontFaces);
  requireRegular(body.fontFaces);
  if ((await repo.countFonts(app.db, orgId)) >= MAX_FONTS)
    throw invalid(`Invalid request: an organization has at most ${MAX_FONTS} custom fonts`);
  const faces = await facesFor(app, orgId, body.fontFaces);
  const id = newId();
  await repo.insertFont(app.db, { id, orgId, family: body.fontFamily, faces });
  return toCustomFont(app.config.publicUrl, (await repo.getFont(app.db, id))!, true);
}

/** `fontFaces` replaces the faces of the weights it names; a null key removes that weight. */
export async function updateFont(
  app: AppContext,
  p: Principal,
  orgId: string,
  fontId: string,
  body: { fontFamily?: string; fontFaces?: FaceInput[] },
) {
  await requireOrg(app.db, p, orgId, 'admin');
  const font = await orgFont(app, orgId, fontId);
  let faces = font.faces;
  if (body.fontFaces) {
    checkFaces(body.fontFaces);
    const named = new Set(body.fontFaces.map((f) => f.weight));
    faces = [...faces.filter((f) => !named.has(f.weight)), ...(await facesFor(app, orgId, body.fontFaces))];
    requireRegular(faces);
  }
  await repo.updateFont(app.db, fontId, body.fontFamily ?? font.font_family, faces);
  return toCustomFont(app.config.publicUrl, (await repo.getFont(app.db, fontId))!, true);
}

/** true when it existed (205), false when not (204). The uploaded files stay (another font may name them). */
export async function deleteFont(app: AppContext, p: Principal, orgId: string, fontId: string): Promise<boolean> {
  await requireOrg(app.db, p, orgId, 'admin');
  return repo.deleteFont(app.db, orgId, fontId);
}

/** A font face's bytes for readers; `orgId` limits it to one organization's fonts (a site's). */
export async function openFontFile(
  app: AppContext,
  fontId: string,
  weight: number,
  orgId?: string,
): Promise<{ stream: Readable; size: number; contentType: string }> {
  const font = await repo.getFont(app.db, fontId);
  if (!font || (orgId !== undefined && font.organization_id !== orgId)) throw notFound('Not found');
  const face = font.faces.find((f) => f.weight === weight);
  if (!face) throw notFound('Not found');
  const stored = await app.blobs.getStream(face.blobKey);
  if (!stored) throw notFound('Not found');
  return { ...stored, contentType: face.contentType };
}

/** The faces of a custom font, for the site stylesheet (null when the font is not the organization's). */
export async function fontFacesFor(app: AppContext, orgId: string, fontId: string): Promise<{ family: string; weights: number[] } | null> {
  const font = await repo.getFont(app.db, fontId);
  if (!font || font.organization_id !== orgId) return null;
  return { family: font.font_family, weights: font.faces.map((f) => f.weight).sort((a, b) => a - b) };
}

/** The custom fonts a site's customization uses (`styling.font`, `headingFont`, `monospaceFont`), as the organization holds them. */
export async function siteCustomFonts(
  app: AppContext,
  orgId: string,
  styling: Record<string, any> | undefined,
): Promise<{ role: 'font' | 'headingFont' | 'monospaceFont'; id: string; family: string; weights: number[] }[]> {
  const out = [];
  for (const role of ['font', 'headingFont', 'monospaceFont'] as const) {
    const def = styling?.[role];
    if (!def || typeof def !== 'object' || def.custom !== true || typeof def.id !== 'string') continue;
    const faces = await fontFacesFor(app, orgId, def.id);
    if (faces) out.push({ role, id: def.id, ...faces });
  }
  return out;
}
