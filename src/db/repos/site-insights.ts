// Site insights (issue 29, item 3): raw events, hourly rollups and the queries over both.
// A query reads the rollups and the raw events not yet folded into them in one statement (one
// snapshot), so an answer right after tracking already counts the new events, and an answer while
// the job folds counts every event once.
import type { Queryable } from '../pool.js';

// The plan of a query, as src/sites/insights-query.ts makes it from the API's request.
/** Where a column's value comes from. */
export type ColumnSource =
  | { src: 'dim'; key: string; cast?: 'int' | 'bool' | 'json' }
  | { src: 'type' }
  | { src: 'datetime'; interval: 'hour' | 'day' | 'week' | 'month' }
  | { src: 'dow' }
  | { src: 'hod' }
  | { src: 'page' }
  | { src: 'claim'; claim: string }
  | { src: 'null' }
  | { src: 'agg'; agg: 'events' | 'visitors' | 'sessions' | 'feedback' | 'askRating' };

export interface PlannedColumn {
  /** The column as the answer names it (with `interval` / `claim` when it has one). */
  out: Record<string, unknown>;
  source: ColumnSource;
  /**
   * What a missing value becomes in an answer: `keep` (the description allows null), `empty` ('' for
   * free text), `drop` (rows without a value are left out: an enum with no null, say a feedback
   * rating grouped over events that are not feedback).
   */
  nulls: 'keep' | 'empty' | 'drop';
  /** A key for equality between the same column in select, groupBy and order. */
  key: string;
}

export interface PlannedFilter {
  column: PlannedColumn;
  values: unknown[];
  operator: 'in' | 'notIn' | 'greaterThan' | 'greaterThanOrEqual' | 'lessThan' | 'lessThanOrEqual';
}

export interface QueryPlan {
  from: Date;
  to: Date;
  output: PlannedColumn[];
  groupBy: PlannedColumn[];
  where: PlannedFilter[];
  order: { column: PlannedColumn; direction: 'asc' | 'desc' } | null;
  limit: number;
}

export interface InsightEventRow {
  type: string;
  occurredAt: Date;
  visitorHash: string;
  sessionHash: string;
  dims: Record<string, unknown>;
  claims: Record<string, unknown>;
}

export async function insertEvents(db: Queryable, siteId: string, rows: InsightEventRow[]): Promise<void> {
  if (!rows.length) return;
  await db.query(
    `INSERT INTO site_insight_events (site_id, occurred_at, type, visitor_hash, session_hash, dims, claims)
     SELECT $1, r.occurred_at, r.type, r.visitor_hash, r.session_hash, r.dims, r.claims
       FROM jsonb_to_recordset($2::jsonb) AS r(occurred_at timestamptz, type text, visitor_hash text, session_hash text, dims jsonb, claims jsonb)`,
    [
      siteId,
      JSON.stringify(
        rows.map((r) => ({
          occurred_at: r.occurredAt.toISOString(),
          type: r.type,
          visitor_hash: r.visitorHash,
          session_hash: r.sessionHash,
          dims: r.dims,
          claims: r.claims,
        })),
      ),
    ],
  );
}

/** Hour buckets in UTC, whatever the session's time zone. */
const utcTrunc = (unit: string, col: string) => `(date_trunc('${unit}', ${col} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`;

/** Events of a site in [from, to) at hour precision: rollups, then raw events past the watermark. */
const EVENTS = `
  SELECT r.hour AS t, r.type, r.dims, r.claims, r.events AS n, r.visitors, r.sessions
    FROM site_insight_rollups r
   WHERE r.site_id = $1 AND r.hour >= ${utcTrunc('hour', '$2::timestamptz')} AND r.hour < $3::timestamptz
  UNION ALL
  SELECT e.occurred_at, e.type, e.dims, e.claims, 1, ARRAY[e.visitor_hash], ARRAY[e.session_hash]
    FROM site_insight_events e
   WHERE e.site_id = $1 AND e.id > coalesce((SELECT last_event_id FROM site_insight_rollup_state), 0)
     AND e.occurred_at >= ${utcTrunc('hour', '$2::timestamptz')} AND e.occurred_at < $3::timestamptz`;

const distinctOf = (col: string) =>
  `(SELECT count(DISTINCT x.h)::int FROM jsonb_array_elements(jsonb_agg(to_jsonb(ev.${col}))) AS a(v), jsonb_array_elements_text(a.v) AS x(h))`;

class Sql {
  params: unknown[];
  private memo = new Map<string, string>();
  constructor(initial: unknown[]) {
    this.params = [...initial];
  }
  /** A parameter; the same value gets the same placeholder (select and group by must match). */
  p(value: unknown, cast = ''): string {
    const key = `${cast}\0${JSON.stringify(value)}`;
    let ph = this.memo.get(key);
    if (!ph) {
      this.params.push(value);
      ph = `$${this.params.length}${cast}`;
      this.memo.set(key, ph);
    }
    return ph;
  }
}

/** The SQL of a plain (non-aggregate) column, null where the event has no value. */
function rawExpr(s: ColumnSource, sql: Sql): string {
  switch (s.src) {
    case 'dim':
      if (s.cast === 'json') return `(ev.dims->${sql.p(s.key)})`;
      if (s.cast === 'int') return `(ev.dims->>${sql.p(s.key)})::int`;
      if (s.cast === 'bool') return `(ev.dims->>${sql.p(s.key)})::boolean`;
      return `(ev.dims->>${sql.p(s.key)})`;
    case 'type':
      return 'ev.type';
    case 'datetime':
      return utcTrunc(s.interval, 'ev.t');
    case 'dow':
      return `extract(isodow FROM ev.t AT TIME ZONE 'UTC')::int`;
    case 'hod':
      return `extract(hour FROM ev.t AT TIME ZONE 'UTC')::int`;
    case 'page':
      return `(CASE WHEN ev.dims->>'space' IS NULL THEN NULL ELSE jsonb_build_object('page', ev.dims->'page', 'space', ev.dims->'space') END)`;
    case 'claim':
      return `(ev.claims->>${sql.p(s.claim)})`;
    case 'null':
      return 'NULL::text';
    case 'agg':
      throw new Error('aggregate');
  }
}

function aggExpr(s: Extract<ColumnSource, { src: 'agg' }>): string {
  const count = (cond: string) => `coalesce(sum(ev.n) FILTER (WHERE ${cond}), 0)::int`;
  switch (s.agg) {
    case 'events':
      return 'coalesce(sum(ev.n), 0)::int';
    case 'visitors':
      return distinctOf('visitors');
    case 'sessions':
      return distinctOf('sessions');
    case 'feedback':
      return `jsonb_build_object(${['ok', 'good', 'bad']
        .map((r) => `'${r}', ${count(`ev.type = 'page_post_feedback' AND ev.dims->>'feedbackRating' = '${r}'`)}`)
        .join(', ')})`;
    case 'askRating':
      return `jsonb_build_object('positive', ${count(`ev.type = 'ask_rate_response' AND (ev.dims->>'askRating')::int = 1`)}, 'negative', ${count(
        `ev.type = 'ask_rate_response' AND (ev.dims->>'askRating')::int = -1`,
      )})`;
  }
}

function outExpr(c: PlannedColumn, sql: Sql): string {
  if (c.source.src === 'agg') return aggExpr(c.source);
  const e = rawExpr(c.source, sql);
  return c.nulls === 'empty' ? `coalesce(${e}, '')` : e;
}

/** The array type a filter's values are compared as. */
function castOf(s: ColumnSource): string {
  if (s.src === 'agg' || s.src === 'dow' || s.src === 'hod') return '::float8[]';
  if (s.src === 'datetime') return '::timestamptz[]';
  if (s.src === 'page') return '::jsonb[]';
  if (s.src === 'dim')
    return s.cast === 'json' ? '::jsonb[]' : s.cast === 'int' ? '::float8[]' : s.cast === 'bool' ? '::boolean[]' : '::text[]';
  return '::text[]';
}

const OPS = { greaterThan: '>', greaterThanOrEqual: '>=', lessThan: '<', lessThanOrEqual: '<=' } as const;

function filterSql(f: PlannedFilter, sql: Sql): string {
  const s = f.column.source;
  const expr = s.src === 'agg' ? aggExpr(s) : rawExpr(s, sql);
  const cast = castOf(s);
  const nonNull = f.values.filter((v) => v !== null);
  const hasNull = nonNull.length < f.values.length;
  const values = nonNull.map((v) => {
    if (cast === '::jsonb[]')
      return JSON.stringify(
        s.src === 'page' && v && typeof v === 'object' ? { page: (v as any).page ?? null, space: (v as any).space ?? null } : v,
      );
    if (cast === '::float8[]') return Number(v);
    if (cast === '::boolean[]') return v === true || v === 'true';
    return String(v);
  });
  if (f.operator === 'in' || f.operator === 'notIn') {
    const inList = `coalesce(${expr} = ANY(${sql.p(values, cast)}), false)`;
    const matches = hasNull ? `(${inList} OR ${expr} IS NULL)` : inList;
    return f.operator === 'in' ? matches : `NOT ${matches}`;
  }
  if (!values.length) return 'false';
  return `coalesce(${expr} ${OPS[f.operator]} (${sql.p(values, cast)})[1], false)`;
}

/** Rows of an aggregation: one array per output column, in order. */
export async function aggregate(db: Queryable, siteId: string, plan: QueryPlan): Promise<unknown[][]> {
  const sql = new Sql([siteId, plan.from.toISOString(), plan.to.toISOString()]);
  const select = plan.output.map((c, i) => `${outExpr(c, sql)} AS c${i}`);
  const groups = plan.groupBy.map((c) => outExpr(c, sql));
  const where = plan.where.filter((f) => f.column.source.src !== 'agg').map((f) => filterSql(f, sql));
  for (const g of plan.groupBy) if (g.nulls === 'drop') where.push(`${rawExpr(g.source, sql)} IS NOT NULL`);
  const having = plan.where.filter((f) => f.column.source.src === 'agg').map((f) => filterSql(f, sql));
  const order: string[] = [];
  if (plan.order) order.push(`${outExpr(plan.order.column, sql)} ${plan.order.direction === 'desc' ? 'DESC' : 'ASC'} NULLS LAST`);
  for (const g of groups) order.push(`${g} ASC NULLS LAST`);
  const text = `WITH ev AS (${EVENTS})
    SELECT ${select.join(', ')} FROM ev
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ${groups.length ? `GROUP BY ${groups.join(', ')}` : ''}
    ${having.length ? `HAVING ${having.join(' AND ')}` : ''}
    ${order.length ? `ORDER BY ${order.join(', ')}` : ''}
    LIMIT ${Math.max(1, Math.min(1000, Math.floor(plan.limit)))}`;
  const { rows } = await db.query(text, sql.params);
  // Without GROUP BY an empty range still answers one row of zeros (sum() of nothing is null).
  return plan.output.map((_, i) => rows.map((r) => r[`c${i}`]));
}

export interface SegmentRow {
  claims: Record<string, unknown>;
  events: number;
  visitors: number;
  sessions: number;
}

/** Visitors grouped by their claims over [from, to): most events first. */
export async function segments(db: Queryable, siteId: string, from: Date, to: Date, limit: number): Promise<SegmentRow[]> {
  const { rows } = await db.query(
    `WITH ev AS (${EVENTS})
     SELECT ev.claims, sum(ev.n)::int AS events, ${distinctOf('visitors')} AS visitors, ${distinctOf('sessions')} AS sessions
       FROM ev GROUP BY ev.claims ORDER BY events DESC, ev.claims::text LIMIT $4`,
    [siteId, from.toISOString(), to.toISOString(), limit],
  );
  return rows;
}

/**
 * Fold raw events into the rollups, up to `max` events received at least `settleMs` ago (an
 * insert still in flight holds a lower id than a committed one for at most that long). One run at a
 * time (the state row's lock). Returns how many events were folded.
 */
export async function foldEvents(tx: Queryable, max: number, settleMs: number): Promise<number> {
  await tx.query('INSERT INTO site_insight_rollup_state DEFAULT VALUES ON CONFLICT DO NOTHING');
  const { rows } = await tx.query('SELECT last_event_id FROM site_insight_rollup_state FOR UPDATE');
  const last = Number(rows[0]?.last_event_id ?? 0);
  const upper = await tx.query(
    `SELECT max(id) AS upto, count(*)::int AS n FROM (
       SELECT id FROM site_insight_events
        WHERE id > $1 AND received_at <= clock_timestamp() - make_interval(secs => $3)
        ORDER BY id LIMIT $2) s`,
    [last, max, settleMs / 1000],
  );
  const upto = upper.rows[0].upto === null ? null : Number(upper.rows[0].upto);
  if (upto === null) return 0;
  await tx.query(
    `INSERT INTO site_insight_rollups AS r (site_id, hour, type, dims, claims, events, visitors, sessions)
     SELECT e.site_id, ${utcTrunc('hour', 'e.occurred_at')}, e.type, e.dims, e.claims, count(*)::int,
            array_agg(DISTINCT e.visitor_hash), array_agg(DISTINCT e.session_hash)
       FROM site_insight_events e
      WHERE e.id > $1 AND e.id <= $2
      GROUP BY e.site_id, ${utcTrunc('hour', 'e.occurred_at')}, e.type, e.dims, e.claims
     ON CONFLICT (site_id, hour, type, md5(dims::text), md5(claims::text)) DO UPDATE
        SET events = r.events + excluded.events,
            visitors = ARRAY(SELECT DISTINCT v FROM unnest(r.visitors || excluded.visitors) v),
            sessions = ARRAY(SELECT DISTINCT v FROM unnest(r.sessions || excluded.sessions) v)`,
    [last, upto],
  );
  // Events between `last` and `upto` still in flight would be lost; `settleMs` makes that moot.
  await tx.query('UPDATE site_insight_rollup_state SET last_event_id = $1', [upto]);
  return upper.rows[0].n;
}

/** Remove folded raw events that occurred before `before`; returns how many. */
export async function deleteFoldedBefore(db: Queryable, before: Date): Promise<number> {
  const r = await db.query(
    `DELETE FROM site_insight_events
      WHERE occurred_at < $1 AND id <= coalesce((SELECT last_event_id FROM site_insight_rollup_state), 0)`,
    [before],
  );
  return r.rowCount ?? 0;
}
