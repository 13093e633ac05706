import type { AppContext } from '../context.js';
import type { SpecRow } from '../db/repos/openapi.js';
import { redactUrl } from '../log.js';
import { appUrls } from './urls.js';
import type { OrgPermissions } from './organizations.js';

/** API path of an OpenAPI spec, without /v1. */
export function specPath(orgId: string, slug: string) {
  return `/orgs/${orgId}/openapi/${slug}`;
}

export function toSpec(app: AppContext, s: SpecRow, perms: Pick<OrgPermissions, 'view' | 'createOpenAPISpec'>) {
  const urls = appUrls(app);
  return {
    object: 'openapi-spec',
    id: s.id,
    createdAt: s.created_at.toISOString(),
    updatedAt: s.updated_at.toISOString(),
    slug: s.slug,
    // Credentials in a source URL are used for fetching, never stored in clear nor shown
    // (redactUrl also covers rows a start-up has not sealed yet).
    ...(s.source_url ? { sourceURL: redactUrl(s.source_url) } : {}),
    processingState: s.processing_state,
    visibility: s.visibility,
    ...(s.last_version ? { lastVersion: s.last_version } : {}),
    ...(s.last_processed_at ? { lastProcessedAt: s.last_processed_at.toISOString() } : {}),
    ...(s.last_process_error_code ? { lastProcessErrorCode: s.last_process_error_code } : {}),
    // A failed processing shows its error; a successful one the validation problems it recorded
    // as warnings (code SCHEMA_VALIDATION or SPEC_VALIDATION), at most 100, with their total count.
    lastProcessedErrors: s.last_process_error
      ? [{ message: s.last_process_error, code: s.last_process_error_code ?? undefined }]
      : (s.last_process_warnings ?? []).map((w) => ({ message: w.message, code: w.code })),
    lastProcessedErrorCount: s.last_process_error ? 1 : (s.last_process_warning_count ?? 0),
    permissions: { view: perms.view, edit: perms.createOpenAPISpec },
    urls: {
      location: urls.api(specPath(s.organization_id, s.slug)),
      app: urls.app(`/o/${s.organization_id}/openapi/${s.slug}`),
      ...(s.visibility === 'public' ? { published: `${app.config.publicUrl}/public/openapi/${s.organization_id}/${s.slug}` } : {}),
    },
  };
}
