import type { AppContext } from '../context.js';
import type { Queryable } from '../db/pool.js';
import type { Principal } from '../auth/principal.js';
import { withTx } from '../db/pool.js';
import * as specs from '../db/repos/openapi.js';
import type { SpecSourceColumns } from '../db/repos/openapi.js';
import { forgetGarbage } from '../db/repos/blob-garbage.js';
import { tryHoldBlobDeletion } from '../db/repos/backup.js';
import { buildPage, decodeCursor, DEFAULT_LIMIT } from '../core/pagination.js';
import { invalid, conflict, notFound } from '../core/errors.js';
import { checkFetchUrl } from '../net/safe-fetch.js';
import { scrubSecrets, sealUrl, splitUrlSecrets } from '../net/url-secrets.js';
import { newId } from '../util/ids.js';
import { redactUrl } from '../log.js';
import { requireOrg } from '../policies/organizations.js';
import { appUrls } from '../presenters/urls.js';
import { specPath, toSpec } from '../presenters/openapi.js';
import { createOperation, enqueue } from './operations.js';
import { operationLocation } from '../presenters/operations.js';

export type SpecSource = { url: string } | { text: string };

/**
 * A URL source is stored as shown (credentials removed) plus, when it carried credentials, the
 * whole URL sealed with the server secret: only the worker that fetches it opens it.
 */
function sourceColumns(app: AppContext, source: SpecSource): SpecSourceColumns {
  if ('url' in source) {
    // Refuse at once what the worker's fetch would refuse (private addresses, bad schemes).
    try {
      checkFetchUrl(source.url, app.config.fetch.allowPrivate);
    } catch (err) {
      throw invalid(`Invalid request: body.source.url: ${scrubSecrets((err as Error).message, splitUrlSecrets(source.url).secrets)}`);
    }
    const { display, secrets } = splitUrlSecrets(source.url);
    return { url: display, urlSealed: secrets.length ? sealUrl(source.url, app.secret) : null, text: null };
  }
  return { url: null, urlSealed: null, text: source.text };
}

export async function listSpecs(app: AppContext, p: Principal, orgId: string, q: { page?: string; limit?: number }) {
  const { permissions } = await requireOrg(app.db, p, orgId, 'view');
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(q.page, 2) as [string, string] | undefined;
  const { rows, count } = await specs.listSpecs(app.db, orgId, limit, after);
  return buildPage(
    rows,
    limit,
    count,
    (r) => [r.sort_key, r.id],
    (r) => toSpec(app, r, permissions),
  );
}

export async function getSpec(app: AppContext, p: Principal, orgId: string, slug: string) {
  const { permissions } = await requireOrg(app.db, p, orgId, 'view');
  const s = await specs.getSpecBySlug(app.db, orgId, slug);
  if (!s) throw notFound(`OpenAPI spec "${slug}" not found`);
  return toSpec(app, s, permissions);
}

/** Inside the caller's transaction: the processing operation of spec `id`, which the worker runs. */
function processOperation(c: Queryable, orgId: string, id: string, p: Principal) {
  return createOperation(c, 'openapi.process', {
    organizationId: orgId,
    payload: { specId: id },
    targetType: 'openapi-spec',
    targetId: id,
    createdBy: p.userId,
  });
}

/** Inside the caller's transaction: a new spec row; null when the slug is taken. */
function insertNewSpec(c: Queryable, id: string, orgId: string, slug: string, columns: SpecSourceColumns, operationId: string) {
  return specs.insertSpec(c, {
    id,
    orgId,
    slug,
    sourceUrl: columns.url,
    sourceUrlSealed: columns.urlSealed,
    sourceText: columns.text,
    operationId,
  });
}

/** POST: create only (409 when the slug exists). Processing continues in a worker. */
export async function createSpec(app: AppContext, p: Principal, orgId: string, slug: string, source: SpecSource) {
  const { permissions } = await requireOrg(app.db, p, orgId, 'createOpenAPISpec');
  const columns = sourceColumns(app, source);
  const { spec, op } = await withTx(app.db, async (c) => {
    const id = newId();
    const op = await processOperation(c, orgId, id, p);
    const spec = await insertNewSpec(c, id, orgId, slug, columns, op.id);
    if (!spec) throw conflict(`An OpenAPI spec with slug "${slug}" already exists in this organization`);
    return { spec, op };
  });
  await enqueue(app, op);
  return { spec: toSpec(app, spec, permissions), location: operationLocation(app, op.id) };
}

/** PUT: create or replace the source; `created` tells which. */
export async function upsertSpec(app: AppContext, p: Principal, orgId: string, slug: string, source: SpecSource) {
  const { permissions } = await requireOrg(app.db, p, orgId, 'createOpenAPISpec');
  const columns = sourceColumns(app, source);
  const result = await withTx(app.db, async (c) => {
    const existing = await specs.getSpecBySlug(c, orgId, slug, true);
    const id = existing?.id ?? newId();
    const op = await processOperation(c, orgId, id, p);
    if (existing) {
      await specs.resetSpecSource(c, id, columns, op.id);
      return { created: false, op, spec: (await specs.getSpec(c, id))! };
    }
    const spec = await insertNewSpec(c, id, orgId, slug, columns, op.id);
    // A concurrent PUT created it between our read and insert: the caller may simply retry.
    if (!spec) throw conflict(`OpenAPI spec "${slug}" was created concurrently; retry the request`);
    return { created: true, op, spec };
  });
  await enqueue(app, result.op);
  return { created: result.created, spec: toSpec(app, result.spec, permissions), location: operationLocation(app, result.op.id) };
}

export async function setSpecVisibility(app: AppContext, p: Principal, orgId: string, slug: string, visibility: 'public' | 'private') {
  const { permissions } = await requireOrg(app.db, p, orgId, 'createOpenAPISpec');
  const s = await specs.getSpecBySlug(app.db, orgId, slug);
  if (!s) throw notFound(`OpenAPI spec "${slug}" not found`);
  await specs.setVisibility(app.db, s.id, visibility);
  return toSpec(app, (await specs.getSpec(app.db, s.id))!, permissions);
}

/** 204 whether or not it existed. Version blobs are deleted after the rows; leftovers stay queued as garbage. */
export async function deleteSpec(app: AppContext, p: Principal, orgId: string, slug: string) {
  await requireOrg(app.db, p, orgId, 'createOpenAPISpec');
  const prefix = await withTx(app.db, async (c) => {
    const s = await specs.getSpecBySlug(c, orgId, slug, true);
    return s ? specs.deleteSpec(c, s.id) : null;
  });
  if (!prefix) return;
  try {
    // Not while a backup runs (its snapshot may still reference these bytes): the purge deletes them later.
    await withTx(app.db, async (c) => {
      if (!(await tryHoldBlobDeletion(c))) return;
      await app.blobs.deletePrefix(prefix);
      await forgetGarbage(c, [prefix]);
    });
  } catch (err) {
    app.log.warn({ err }, 'could not delete OpenAPI version blobs now; left for the purge job');
  }
}

async function latestVersion(app: AppContext, p: Principal, orgId: string, slug: string, versionId?: string) {
  await requireOrg(app.db, p, orgId, 'view');
  return versionOf(app, orgId, slug, versionId);
}

async function versionOf(app: AppContext, orgId: string, slug: string, versionId?: string) {
  const s = await specs.getSpecBySlug(app.db, orgId, slug);
  if (!s) throw notFound(`OpenAPI spec "${slug}" not found`);
  const id = versionId ?? s.last_version;
  const v = id ? await specs.getVersion(app.db, s.id, id) : null;
  if (!v) throw notFound(versionId ? `Version "${versionId}" not found` : `OpenAPI spec "${slug}" has no processed version yet`);
  return { s, v };
}

export async function getSpecVersion(app: AppContext, p: Principal, orgId: string, slug: string, versionId?: string) {
  const { v } = await latestVersion(app, p, orgId, slug, versionId);
  const base = appUrls(app).api(`${specPath(orgId, slug)}/versions/${v.id}`);
  return {
    object: 'openapi-spec-version',
    id: v.id,
    createdAt: v.created_at.toISOString(),
    url: `${base}/content`,
    urls: { location: base },
    // What strict validation found in this version (the description was processed all the same).
    warnings: (v.warnings ?? []) as { code: string; message: string }[],
    warningCount: (v.warning_count ?? 0) as number,
  };
}

/** The processed (bundled, validated) document of a version, read back from the BlobStore. */
export async function getSpecVersionContent(app: AppContext, p: Principal, orgId: string, slug: string, versionId?: string) {
  await requireOrg(app.db, p, orgId, 'view');
  return specVersionContent(app, orgId, slug, versionId);
}

/** A version's content once the caller may read it (a member, or a site token whose pages use the spec). */
export async function specVersionContent(app: AppContext, orgId: string, slug: string, versionId?: string) {
  const { s, v } = await versionOf(app, orgId, slug, versionId);
  const bytes = await app.blobs.get(`${v.blob_key}`);
  if (!bytes) throw notFound('The stored content of this version is missing');
  const published = `${app.config.publicUrl}/public/openapi/${orgId}/${slug}`;
  return {
    filesystem: JSON.parse(bytes.toString('utf8')),
    urls: {
      source: s.source_url ? redactUrl(s.source_url) : appUrls(app).api(`${specPath(orgId, slug)}/versions/${v.id}/content`),
      public: s.visibility === 'public' ? published : null,
    },
  };
}

export async function getSpecVersionRaw(app: AppContext, p: Principal, orgId: string, slug: string) {
  const { v } = await latestVersion(app, p, orgId, slug);
  const raw = await app.blobs.get(rawKey(v.blob_key));
  if (!raw) throw notFound('The stored content of this version is missing');
  const text = raw.toString('utf8');
  return { text, format: /^\s*[{[]/.test(text) ? 'json' : 'yaml' };
}

export function rawKey(bundleKey: string) {
  return bundleKey.replace(/bundle\.json$/, 'source.txt');
}

/** Public link of a public spec: no token needed, 404 for private ones. */
export async function getPublicSpec(app: AppContext, orgId: string, slug: string): Promise<Buffer> {
  const s = await specs.getSpecBySlug(app.db, orgId, slug);
  if (!s || s.visibility !== 'public' || !s.last_version) throw notFound('Not found');
  const v = await specs.getVersion(app.db, s.id, s.last_version);
  const bytes = v && (await app.blobs.get(v.blob_key));
  if (!bytes) throw notFound('Not found');
  return bytes;
}

/** listOpenAPISpecVersions: the processed versions of a spec, newest first. */
export async function listSpecVersions(app: AppContext, p: Principal, orgId: string, slug: string, q: { page?: string; limit?: number }) {
  await requireOrg(app.db, p, orgId, 'view');
  const s = await specs.getSpecBySlug(app.db, orgId, slug);
  if (!s) throw notFound(`OpenAPI spec "${slug}" not found`);
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(q.page, 2) as [string, string] | undefined;
  const { rows, count } = await specs.listVersions(app.db, s.id, limit, after);
  return buildPage(
    rows,
    limit,
    count,
    (v) => [v.sort_key, v.id],
    (v) => {
      const base = appUrls(app).api(`${specPath(orgId, slug)}/versions/${v.id}`);
      return {
        object: 'openapi-spec-version',
        id: v.id,
        createdAt: v.created_at.toISOString(),
        url: `${base}/content`,
        urls: { location: base },
      };
    },
  );
}
