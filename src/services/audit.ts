// The audit log (issue 28 item 4): who changed what, on what, when and from where.
//
// Recording is central and cheap: one `recordAudit` that appends rows. It is called
// - by the HTTP edge after every successful change made through the API (`auditApiCall`: the
//   action named from the route, the target from its path, the organization resolved before the
//   change ran, so a deletion still finds it);
// - by the worker runner when a job that changes things ends (`auditJob`);
// - by the services whose changes happen outside an authenticated API call: SSO sign-ins, tokens
//   issued by a sign-in or the CLI, invites accepted.
// Reading is for organization admins only (404 for non-members, 403 for other members, as every
// organization setting). The log is append-only (a trigger refuses UPDATE and any DELETE but the
// retention purge's), and events older than AUDIT_RETENTION_DAYS are purged by the maintenance
// schedule (the `spaces.purge` run, src/services/purge.ts).
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import type { Db, Queryable } from '../db/pool.js';
import * as repo from '../db/repos/audit.js';
import { getOperation } from '../db/repos/operations.js';
import { buildPage, decodeCursor } from '../core/pagination.js';
import { notFound } from '../core/errors.js';
import { requireOrg } from '../policies/organizations.js';
import { toAuditEvent, toAuditEventAction, toAuditEventDetails } from '../presenters/audit.js';
import type { Logger } from '../log.js';

export type AuditSource = 'ui' | 'api' | 'integration' | 'webhook' | 'workflow' | 'script' | 'support';

export interface AuditInput {
  /** One event per organization listed (a user-level change lands in each of the user's organizations). */
  organizationIds: string[];
  action: string;
  actor: { type: 'user' | 'integration' | 'installation' | 'system' | 'support'; id: string; label?: string | null };
  source: AuditSource;
  target: { type: string; id: string; label?: string | null };
  clientAddress?: string | null;
  executionId?: string | null;
  correlationId?: string | null;
  /** Allowlisted details: identifiers and enumerations, never request bodies or secrets. */
  payload?: Record<string, unknown>;
}

/** Append the event (one row per organization). Throws like any write: call it inside the change's transaction to make both atomic. */
export async function recordAudit(db: Queryable, e: AuditInput): Promise<void> {
  const orgs = [...new Set(e.organizationIds)];
  await repo.insertAuditEvents(
    db,
    orgs.map((organizationId) => ({
      id: randomUUID(),
      organizationId,
      action: e.action,
      actor: e.actor,
      source: e.source,
      target: e.target,
      clientAddress: e.clientAddress,
      executionId: e.executionId,
      correlationId: e.correlationId,
      payload: e.payload,
    })),
  );
}

/** `recordAudit` after a change already committed: a failure is logged (at error level), never thrown at the caller. */
export async function recordAuditAfter(app: { db: Db; log: Logger }, e: AuditInput, log: Logger = app.log): Promise<void> {
  try {
    await recordAudit(app.db, e);
  } catch (err) {
    log.error({ err: (err as Error).message, action: e.action }, 'audit event not recorded');
  }
}

/** Who a principal is in the log: the user, from the UI (an SSO session) or the API (a token). */
export function actorOf(p: Principal): { actor: AuditInput['actor']; source: AuditSource } {
  return { actor: { type: 'user', id: p.userId }, source: p.tokenId.startsWith('session:') ? 'ui' : 'api' };
}

// ---------------------------------------------------------------------------------------------
// API calls, recorded by the HTTP edge.

/** A final path segment that names what a POST does rather than what it creates. */
const VERB_SEGMENTS = new Set([
  'move',
  'import',
  'export',
  'transfer',
  'update',
  'publish',
  'unpublish',
  'run',
  'restore',
  'regenerate',
  'merge',
  'duplicate',
  'sso',
  'sort',
  'template',
]);
/**
 * Calls the edge does not record: presence pings change nothing worth a record, and joining with
 * an invite carries the invite's secret token in its path; its service records `invites.accept`
 * with the invite's public id instead.
 */
const NOT_AUDITED = new Set(['POST /v1/orgs/:organizationId/ping', 'POST /v1/orgs/:organizationId/invites/:inviteId']);
const METHOD_VERB: Record<string, string> = { POST: 'create', PUT: 'set', PATCH: 'update', DELETE: 'delete' };

/**
 * The stable action name of a route: its resource path without ids and the verb, e.g.
 * `spaces.create` (POST /v1/orgs/:organizationId/spaces), `spaces.permissions.users.update`,
 * `spaces.change-requests.merge`, `members.delete`. Null for calls that are not recorded.
 */
export function actionOfRoute(method: string, pattern: string): string | null {
  if (!(method in METHOD_VERB) || NOT_AUDITED.has(`${method} ${pattern}`)) return null;
  const segs = pattern.split('/').filter((s) => s && s !== 'v1' && s !== '*');
  const names = segs.filter((s) => !s.startsWith(':'));
  if (names[names.length - 1] === 'search') return null;
  if (names[0] === 'orgs' && names.length > 1) names.shift();
  const last = segs[segs.length - 1];
  let verb = METHOD_VERB[method];
  if (method === 'POST' && last && !last.startsWith(':') && VERB_SEGMENTS.has(last) && names.length > 1) verb = names.pop()!;
  return [...names, verb].join('.');
}

const TARGET_TYPES: Record<string, string> = {
  organizationId: 'organization',
  spaceId: 'space',
  collectionId: 'collection',
  siteId: 'site',
  changeRequestId: 'change-request',
  teamId: 'team',
  userId: 'user',
  samlProviderId: 'saml-provider',
  inviteId: 'invite',
  translationId: 'translation',
  specSlug: 'openapi-spec',
  commentId: 'comment',
  pageId: 'page',
  fileId: 'file',
};

const ACTION_LABELS = new Map<string, string>([
  ['sso.signin', 'Signed in through single sign-on'],
  ['tokens.create', 'API token issued'],
  ['invites.accept', 'Invite accepted'],
  ['users.update', 'Profile updated'],
  ['orgs.create', 'Organization created (CLI)'],
  ['members.set', 'Member added or role set (CLI)'],
]);

/**
 * The catalogue of actions (listOrganizationAuditEventActions): every audited route of the API
 * table (registered by the HTTP edge at start), the worker jobs and the service-recorded ones.
 */
export function registerAuditedRoutes(routes: { method: string; path: string; summary?: string; auth?: boolean }[]): void {
  for (const r of routes) {
    if (r.auth === false) continue;
    const action = actionOfRoute(r.method, r.path);
    if (action && !ACTION_LABELS.has(action)) ACTION_LABELS.set(action, r.summary ?? `${r.method} ${r.path.replace(/^\/v1/, '')}`);
  }
}

/** Jobs whose end is recorded (the ones that change content, sites or settings). */
const AUDITED_JOBS: Record<string, string> = {
  'git.sync': 'Git Sync run',
  'git.import': 'Git import',
  'git.export': 'Git export',
  'import.website': 'Website import',
  'translation.run': 'Translation run',
  'openapi.process': 'OpenAPI specification processed',
  'spaces.purge': 'Deleted spaces purged',
};
for (const [job, label] of Object.entries(AUDITED_JOBS)) {
  ACTION_LABELS.set(`jobs.${job}.succeeded`, `${label}: succeeded`);
  ACTION_LABELS.set(`jobs.${job}.failed`, `${label}: failed`);
}

/** Before a change runs: the organizations it happens in, from its path (a deletion would not find them after). */
export async function organizationsOfCall(app: AppContext, params: Record<string, unknown>): Promise<string[]> {
  if (typeof params.organizationId === 'string') return [params.organizationId];
  if (typeof params.spaceId === 'string') {
    const org = await repo.organizationOf(app.db, 'space', params.spaceId);
    return org ? [org] : [];
  }
  if (typeof params.collectionId === 'string') {
    const org = await repo.organizationOf(app.db, 'collection', params.collectionId);
    return org ? [org] : [];
  }
  return [];
}

export interface ApiCall {
  method: string;
  /** The route's pattern (`/v1/spaces/:spaceId`). */
  route: string;
  params: Record<string, unknown>;
  principal: Principal;
  organizationIds: string[];
  status: number;
  /** The reply body: a POST that created something names it (`object`, `id`, `title`). */
  body: unknown;
  clientAddress: string | null;
  requestId: string;
}

/** Record a successful change made through the API (called by the HTTP edge, after the handler). */
export async function auditApiCall(app: AppContext, call: ApiCall, log: Logger): Promise<void> {
  const action = actionOfRoute(call.method, call.route);
  if (!action || call.organizationIds.length === 0 || call.status >= 400) return;
  const ids = Object.entries(call.params).filter(([k, v]) => typeof v === 'string' && k in TARGET_TYPES) as [string, string][];
  const primary = ids.find(([k]) => k !== 'organizationId') ?? ids[0];
  let target = primary ? { type: TARGET_TYPES[primary[0]], id: primary[1] } : { type: 'organization', id: call.organizationIds[0] };
  let label: string | null = null;
  const body = call.body as { object?: unknown; id?: unknown; title?: unknown } | undefined;
  const created =
    call.method === 'POST' &&
    body &&
    typeof body.object === 'string' &&
    typeof body.id === 'string' &&
    !call.route.endsWith(`:${primary?.[0]}`);
  if (created && METHOD_VERB.POST === action.split('.').pop()) {
    target = { type: String(body.object), id: String(body.id) };
    if (typeof body.title === 'string') label = body.title.slice(0, 200);
  }
  const { actor, source } = actorOf(call.principal);
  await recordAuditAfter(
    app,
    {
      organizationIds: call.organizationIds,
      action,
      actor,
      source,
      target: { ...target, label },
      clientAddress: call.clientAddress,
      correlationId: call.requestId,
      payload: { method: call.method, route: call.route.replace(/^\/v1/, ''), params: Object.fromEntries(ids), status: call.status },
    },
    log,
  );
}

// ---------------------------------------------------------------------------------------------
// Worker jobs, recorded by the runner.

export interface JobEnd {
  name: string;
  operation: {
    id: string;
    organization_id: string | null;
    target_type: string | null;
    target_id: string | null;
    created_by: string | null;
  };
  status: 'succeeded' | 'failed';
}

/** `auditJob` for an operation known by id (the runner's hook): loads the operation only for audited jobs. */
export async function auditJobEnd(
  app: { db: Db; log: Logger },
  name: string,
  operationId: string,
  status: JobEnd['status'],
): Promise<void> {
  if (!(name in AUDITED_JOBS)) return;
  try {
    const op = await getOperation(app.db, operationId);
    if (op) await auditJob(app, { name, operation: op, status });
  } catch (err) {
    app.log.error({ err: (err as Error).message, operationId }, 'audit event of a job not recorded');
  }
}

export async function auditJob(app: { db: Db; log: Logger }, j: JobEnd): Promise<void> {
  if (!(j.name in AUDITED_JOBS) || !j.operation.organization_id) return;
  await recordAuditAfter(app, {
    organizationIds: [j.operation.organization_id],
    action: `jobs.${j.name}.${j.status}`,
    // A worker acts for whoever asked for the operation; a scheduled run for the system.
    actor: j.operation.created_by ? { type: 'user', id: j.operation.created_by } : { type: 'system', id: 'worker' },
    source: 'workflow',
    target: { type: j.operation.target_type ?? 'operation', id: j.operation.target_id ?? j.operation.id },
    executionId: j.operation.id,
    payload: { job: j.name, operation: j.operation.id },
  });
}

// ---------------------------------------------------------------------------------------------
// Reading (organization admins only).

export interface AuditQuery {
  page?: string;
  limit?: number;
  from?: string;
  to?: string;
  action?: string;
  actor?: string;
  target?: string;
}

export async function listEvents(app: AppContext, p: Principal, orgId: string, q: AuditQuery) {
  await requireOrg(app.db, p, orgId, 'admin');
  const limit = q.limit ?? 20;
  const after = decodeCursor(q.page, 2) as [string, string] | undefined;
  const { rows, count } = await repo.listAuditEvents(app.db, orgId, {
    limit,
    after,
    from: q.from ? new Date(q.from) : undefined,
    to: q.to ? new Date(q.to) : undefined,
    action: q.action,
    actor: q.actor,
    target: q.target,
  });
  return buildPage(
    rows,
    limit,
    count,
    (r) => [r.sort_key, r.id],
    (r) => toAuditEvent(app, r),
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function getEvent(app: AppContext, p: Principal, orgId: string, eventId: string) {
  await requireOrg(app.db, p, orgId, 'admin');
  const row = UUID.test(eventId) ? await repo.getAuditEvent(app.db, orgId, eventId) : null;
  if (!row) throw notFound(`Audit event "${eventId}" not found`);
  return toAuditEventDetails(app, row);
}

export async function listActions(app: AppContext, p: Principal, orgId: string) {
  await requireOrg(app.db, p, orgId, 'admin');
  const known = new Map(ACTION_LABELS);
  for (const a of await repo.listRecordedActions(app.db, orgId)) if (!known.has(a)) known.set(a, a);
  return { items: [...known].sort(([a], [b]) => a.localeCompare(b)).map(([id, label]) => toAuditEventAction({ id, label })) };
}

// ---------------------------------------------------------------------------------------------
// Retention.

const DAY_MS = 86_400_000;

/** Delete events older than AUDIT_RETENTION_DAYS (run by the maintenance schedule). */
export async function purgeExpiredAuditEvents(app: { db: Db; config: { auditRetentionDays: number } }, now = Date.now()): Promise<number> {
  return repo.purgeAuditEvents(app.db, new Date(now - app.config.auditRetentionDays * DAY_MS));
}
