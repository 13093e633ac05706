// The work of the `openapi.process` job: fetch (or read inline), parse, bundle and validate an
// OpenAPI spec, and store the version.
import { createHash } from 'node:crypto';
import type { AppContext } from '../context.js';
import { DomainError } from '../core/errors.js';
import { JobSkipped } from '../queue/errors.js';
import * as specs from '../db/repos/openapi.js';
import { withTx } from '../db/pool.js';
import { processSpec, SpecParseError } from '../content/openapi.js';
import { safeFetch, FetchTimeoutError, FetchFailedError } from '../net/safe-fetch.js';
import { openSealedUrl, scrubSecrets, splitUrlSecrets } from '../net/url-secrets.js';
import { newId } from '../util/ids.js';
import type { OperationRun } from './operation-run.js';

type ProcessErrorCode = 'FETCH_TIMEOUT' | 'FETCH_ERROR' | 'PARSE_ERROR';

/**
 * The spec could not be fetched or parsed: `code` is stored on the spec (lastProcessErrorCode) with
 * the reason, and the operation fails with "<code>: <reason>" (credentials scrubbed from both).
 */
export class SpecProcessingError extends DomainError {
  constructor(
    readonly code: ProcessErrorCode,
    reason: string,
  ) {
    super(code === 'PARSE_ERROR' ? 'unprocessable' : 'upstream', `${code}: ${reason}`);
    this.name = 'SpecProcessingError';
  }
}

export interface SpecProcessingResult {
  version: string;
  openapi: string;
  title: string | null;
  size: number;
  warnings: number;
}

const SUPERSEDED = 'Superseded by a newer update of the spec';

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
 * lastProcessErrorCode (FETCH_TIMEOUT, FETCH_ERROR or PARSE_ERROR) and throws SpecProcessingError;
 * the previous version, if any, stays the current one. Only the operation the spec currently waits
 * for may write its state: a newer PUT supersedes an older run (JobSkipped).
 */
export async function processOpenAPISpec(app: AppContext, specId: string, run: OperationRun): Promise<SpecProcessingResult> {
  const { operation } = run;
  const spec = await specs.getSpec(app.db, specId);
  if (!spec) throw new JobSkipped('The OpenAPI spec was deleted before processing');
  if (spec.processing_operation_id !== operation.id) throw new JobSkipped(SUPERSEDED);
  if (!(await specs.markSpecInProgress(app.db, specId, operation.id))) throw new JobSkipped(SUPERSEDED);

  /** Record the failure on the spec (unless a newer update took it over) and fail the operation. */
  const fail = async (code: ProcessErrorCode, message: string): Promise<never> => {
    if (!(await specs.completeSpec(app.db, specId, operation.id, { errorCode: code, error: message }))) {
      throw new JobSkipped(SUPERSEDED);
    }
    throw new SpecProcessingError(code, message);
  };

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
      return fail('FETCH_ERROR', 'The stored credentials of the source URL cannot be read (was SECRET_KEY changed?); put the source again');
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
    await run.progress(0.3);
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
    return fail(code, scrubSecrets((err as Error).message, secrets));
  }
  await run.progress(0.7);

  // Store first, then make it visible: a crash in between leaves an unreferenced blob, never a
  // version row pointing at missing bytes.
  const versionId = newId();
  const prefix = `${specs.specBlobPrefix(specId)}${versionId}/`;
  const body = Buffer.from(JSON.stringify(processed.bundled));
  await app.blobs.put(`${prefix}source.txt`, text, { contentType: 'text/plain; charset=utf-8' });
  await app.blobs.put(`${prefix}bundle.json`, body, { contentType: 'application/json' });
  const applied = await withTx(app.db, async (c) => {
    await run.fence(c); // one version per operation, even if a stalled run wakes up after a takeover
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
    throw new JobSkipped(SUPERSEDED);
  }
  return {
    version: versionId,
    openapi: processed.openapi,
    title: processed.title ?? null,
    size: body.length,
    warnings: processed.warnings.length,
  };
}
