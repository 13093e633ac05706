import type { AppContext } from '../context.js';
import type { AuditEventRow } from '../db/repos/audit.js';
import { appUrls } from './urls.js';

/** The schema version of every payload written so far (AuditEventDetails.schemaVersion). */
export const AUDIT_SCHEMA_VERSION = 1;

export function toAuditEvent(app: AppContext, r: AuditEventRow) {
  return {
    object: 'audit-event',
    id: r.id,
    occurredAt: r.occurred_at.toISOString(),
    action: r.action,
    actor: { type: r.actor_type, id: r.actor_id, ...(r.actor_label ? { label: r.actor_label } : {}) },
    source: r.source,
    target: { type: r.target_type, id: r.target_id, ...(r.target_label ? { label: r.target_label } : {}) },
    urls: { location: appUrls(app).api(`/orgs/${r.organization_id}/audit-events/${r.id}`) },
  };
}

/** One event with its details; the client address is shown here only (admins' eyes, see docs/security.md). */
export function toAuditEventDetails(app: AppContext, r: AuditEventRow) {
  return {
    ...toAuditEvent(app, r),
    ...(r.execution_id ? { executionId: r.execution_id } : {}),
    ...(r.correlation_id ? { correlationId: r.correlation_id } : {}),
    schemaVersion: AUDIT_SCHEMA_VERSION,
    payload: { ...r.payload, ...(r.client_address ? { clientAddress: r.client_address } : {}) },
  };
}

export function toAuditEventAction(a: { id: string; label: string }) {
  return { object: 'audit-event-action', id: a.id, label: a.label };
}
