import { createHash } from 'node:crypto';
import type { Processor } from './types.js';
import { JobFailure, JobSkipped } from '../src/queue/errors.js';
import * as specs from '../src/db/repos/openapi.js';
import { withTx } from '../src/db/pool.js';
import { processSpec, SpecParseError } from '../src/content/openapi.js';
import { safeFetch, FetchTimeoutError, FetchFailedError } from '../src/net/safe-fetch.js';
import { openSealedUrl, scrubSecrets, splitUrlSecrets } from '../src/net/url-secrets.js';
import { newId } from '../src/util/ids.js';

/** An error safe to hand to BullMQ (stored in Redis) and the logs: message and stack scrubbed. */
function scrubError(err: unknown, secrets: string[]): unknown {
  if (!(err instanceof Error)) return new Error(scrubSecrets(String(err), secrets));
  err.message = scrubSecrets(err.message, secrets);
  if (err.stack) err.stack = scrubSecrets(err.stack, secrets);
  return err;
}

/**
 * Fetch (or read inline), parse, bundle and validate an OpenAPI spec, store the version in the
 * BlobStore and move the spec pending -> progress -> complete. What strict validation finds is
 * stored as warnings with the version (the description is processed all the same). A failure sets
 * lastProcessErrorCode (FETCH_TIMEOUT, FETCH_ERROR or PARSE_ERROR) and fails the operation; the
 * previous version, if any, stays the current one. Only the operation the spec currently waits
 * for may write its state: a newer PUT supersedes an older run.
 */
export const processOpenAPISpec: Processor<'openapi.process'> = async ({ specId }, ctx) => {
  const { app, operation } = ctx;
  const spec = await specs.getSpec(app.db, specId);
  if (!spec) throw new JobSkipped('The OpenAPI spec was deleted before processing');
  if (spec.processing_operation_id !== operation.id) throw new JobSkipped('Superseded by a newer update of the spec');
  if (!(await specs.markSpecInProgress(app.db, specId, operation.id))) throw new JobSkipped('Superseded by a newer update of the spec');

  const fetchOpts = {
    timeoutMs: app.config.fetch.timeoutMs,
    maxBytes: app.config.fetch.maxBytes,
    allowPrivate: app.config.fetch.allowPrivate,
    headers: { accept: 'application/json, application/yaml, text/yaml, */*' },
  };
  // The whole URL (credentials included) exists only in this function's memory: every message that
  // leaves it (spec row, operation row, Redis, logs) is scrubbed of the credentials first.
  let sourceUrl = spec.source_url;
  const secrets = sourceUrl ? splitUrlSecrets(sourceUrl).secrets : [];
  if (spec.source_url_sealed) {
    try {
      sourceUrl = openSealedUrl(spec.source_url_sealed, app.secret);
    } catch {
      const message = 'The stored credentials of the source URL cannot be read (was SECRET_KEY changed?); put the source again';
      if (!(await specs.completeSpec(app.db, specId, operation.id, { errorCode: 'FETCH_ERROR', error: message }))) {
        throw new JobSkipped('Superseded by a newer update of the spec');
      }
      throw new JobFailure(`FETCH_ERROR: ${message}`);
    }
    secrets.push(...splitUrlSecrets(sourceUrl).secrets);
  }
  let text: string;
  let processed;
  try {
    if (sourceUrl) {
      text = (await safeFetch(sourceUrl, fetchOpts)).body.toString('utf8');
    } else {
      text = spec.source_text ?? '';
    }
    await ctx.progress(0.3);
    processed = await processSpec(text, sourceUrl ?? undefined, async (url) => (await safeFetch(url, fetchOpts)).body);
  } catch (err) {
    const code =
      err instanceof FetchTimeoutError
        ? 'FETCH_TIMEOUT'
        : err instanceof FetchFailedError
          ? 'FETCH_ERROR'
          : err instanceof SpecParseError
            ? 'PARSE_ERROR'
            : null;
    if (!code) throw scrubError(err, secrets); // unexpected (database, storage): let BullMQ retry
    const message = scrubSecrets((err as Error).message, secrets);
    if (!(await specs.completeSpec(app.db, specId, operation.id, { errorCode: code, error: message }))) {
      throw new JobSkipped('Superseded by a newer update of the spec');
    }
    throw new JobFailure(`${code}: ${message}`);
  }
  await ctx.progress(0.7);

  // Store first, then make it visible: a crash in between leaves an unreferenced blob, never a
  // version row pointing at missing bytes.
  const versionId = newId();
  const prefix = `${specs.specBlobPrefix(specId)}${versionId}/`;
  const body = Buffer.from(JSON.stringify(processed.bundled));
  await app.blobs.put(`${prefix}source.txt`, text, { contentType: 'text/plain; charset=utf-8' });
  await app.blobs.put(`${prefix}bundle.json`, body, { contentType: 'application/json' });
  const applied = await withTx(app.db, async (c) => {
    await ctx.fence(c); // one version per operation, even if a stalled run wakes up after a takeover
    const current = await specs.getSpec(c, specId, true);
    if (!current || current.processing_operation_id !== operation.id) return false;
    await specs.insertVersion(c, {
      id: versionId,
      specId,
      blobKey: `${prefix}bundle.json`,
      sha256: createHash('sha256').update(body).digest('hex'),
      size: body.length,
      openapi: processed.openapi,
      title: processed.title,
      apiVersion: processed.apiVersion,
      warnings: processed.warnings,
      groups: processed.groups,
    });
    return specs.completeSpec(c, specId, operation.id, {
      versionId,
      warnings: processed.warnings,
      warningCount: processed.warnings.length,
    });
  });
  if (!applied) {
    await app.blobs.deletePrefix(prefix).catch(() => {});
    throw new JobSkipped('Superseded by a newer update of the spec');
  }
  return {
    version: versionId,
    openapi: processed.openapi,
    title: processed.title ?? null,
    size: body.length,
    warnings: processed.warnings.length,
  };
};
