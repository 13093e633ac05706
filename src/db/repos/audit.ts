// The audit log (issue 28): append-only. There is no UPDATE here, and the only DELETE is the
// retention purge, which the table's trigger lets through for its own transaction alone
// (migration 0022).
import type { Db, Queryable } from '../pool.js';
import { withTx } from '../pool.js';

export interface AuditEventRow {
  id: string;
  organization_id: string;
  occurred_at: Date;
  action: string;
  actor_type: string;
  actor_id: string;
  actor_label: string | null;
  source: string;
  target_type: string;
  target_id: string;
  target_label: string | null;
  client_address: string | null;
  execution_id: string | null;
  correlation_id: string | null;
  payload: Record<string, unknown>;
}

export interface NewAuditEvent {
  id: string;
  organizationId: string;
  action: string;
  actor: { type: string; id: string; label?: string | null };
  source: string;
  target: { type: string; id: string; label?: string | null };
  clientAddress?: string | null;
  executionId?: string | null;
  correlationId?: string | null;
  payload?: Record<string, unknown>;
}

/**
 * Append events. A user actor without a label gets the user's
 * display name as it is now (captured: a later rename does not change the event).
 */
export async function insertAuditEvents(db: Queryable, events: NewAuditEvent[]): Promise<void> {
  if (events.length === 0) return;
  const cols = 14;
  const values: unknown[] = [];
  const rows: string[] = [];
  events.forEach((e, i) => {
    const b = i * cols;
    const n = (k: number) => `$${b + k}`;
    rows.push(
      `(${n(1)}::uuid, ${n(2)}, ${n(3)}, ${n(4)}, ${n(5)}, ` +
        `COALESCE(${n(6)}, CASE WHEN ${n(4)} = 'user' THEN (SELECT display_name FROM users WHERE id = ${n(5)}) END), ` +
        `${n(7)}, ${n(8)}, ${n(9)}, ${n(10)}, ${n(11)}, ${n(12)}, ${n(13)}, ${n(14)}::jsonb)`,
    );
    values.push(
      e.id,
      e.organizationId,
      e.action,
      e.actor.type,
      e.actor.id,
      e.actor.label ?? null,
      e.source,
      e.target.type,
      e.target.id,
      e.target.label ?? null,
      e.clientAddress ?? null,
      e.executionId ?? null,
      e.correlationId ?? null,
      JSON.stringify(e.payload ?? {}),
    );
  });
  await db.query(
    `INSERT INTO audit_events (id, organization_id, action, actor_type, actor_id, actor_label, source, target_type, target_id,
       target_label, client_address, execution_id, correlation_id, payload)
     VALUES ${rows.join(', ')}`,
    values,
  );
}

export interface AuditFilter {
  from?: Date;
  to?: Date;
  action?: string;
  actor?: string;
  target?: string;
  limit: number;
  /** [occurred_at as text, id] of the last event of the previous page (newest first). */
  after?: [string, string];
}

export async function listAuditEvents(db: Queryable, orgId: string, f: AuditFilter) {
  const where = ['organization_id = $1'];
  const params: unknown[] = [orgId];
  const add = (sql: (n: number) => string, v: unknown) => {
    params.push(v);
    where.push(sql(params.length));
  };
  if (f.from) add((n) => `occurred_at >= $${n}`, f.from);
  if (f.to) add((n) => `occurred_at <= $${n}`, f.to);
  if (f.action) add((n) => `action = $${n}`, f.action);
  if (f.actor) add((n) => `actor_id = $${n}`, f.actor);
  if (f.target) add((n) => `target_id = $${n}`, f.target);
  const countParams = [...params];
  const countWhere = where.join(' AND ');
  if (f.after) {
    params.push(f.after[0], f.after[1]);
    where.push(`(occurred_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(f.limit + 1);
  const { rows } = await db.query<AuditEventRow & { sort_key: string }>(
    `SELECT *, occurred_at::text AS sort_key FROM audit_events WHERE ${where.join(' AND ')}
      ORDER BY occurred_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const { rows: c } = await db.query(`SELECT count(*)::int AS n FROM audit_events WHERE ${countWhere}`, countParams);
  return { rows, count: c[0].n as number };
}

export async function getAuditEvent(db: Queryable, orgId: string, id: string): Promise<AuditEventRow | null> {
  const { rows } = await db.query<AuditEventRow>('SELECT * FROM audit_events WHERE organization_id = $1 AND id = $2::uuid', [orgId, id]);
  return rows[0] ?? null;
}

/** The actions recorded in an organization so far (beside the catalogue of known ones). */
export async function listRecordedActions(db: Queryable, orgId: string): Promise<string[]> {
  const { rows } = await db.query<{ action: string }>(
    'SELECT DISTINCT action FROM audit_events WHERE organization_id = $1 ORDER BY action LIMIT 1000',
    [orgId],
  );
  return rows.map((r) => r.action);
}

/** Retention: delete events older than `before`, in batches; the only deletion path of the table. */
export async function purgeAuditEvents(db: Db, before: Date, batch = 5000): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await withTx(db, async (c) => {
      await c.query(`SELECT set_config('docsplatform.audit_purge', 'on', true)`);
      const { rowCount } = await c.query(
        'DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE occurred_at < $1 LIMIT $2)',
        [before, batch],
      );
      return rowCount ?? 0;
    });
    total += n;
    if (n < batch) return total;
  }
}

/** The organizations a user belongs to (a user-level change, such as a new token, is recorded in each). */
export async function organizationsOfUser(db: Queryable, userId: string): Promise<string[]> {
  const { rows } = await db.query<{ organization_id: string }>(
    'SELECT organization_id FROM members WHERE user_id = $1 ORDER BY organization_id LIMIT 1000',
    [userId],
  );
  return rows.map((r) => r.organization_id);
}

/** The organization owning a space, collection or site (null when none does). */
export async function organizationOf(db: Queryable, kind: 'space' | 'collection', id: string): Promise<string | null> {
  const sql =
    kind === 'space' ? 'SELECT organization_id FROM spaces WHERE id = $1' : 'SELECT organization_id FROM collections WHERE id = $1';
  const { rows } = await db.query<{ organization_id: string }>(sql, [id]);
  return rows[0]?.organization_id ?? null;
}
