/**
 * Site insights without a tracker (issue 29, item 3): events a published site's readers send
 * (trackEventsInSiteById, or the reader's own `~gitbook/insights` on the site's origin), the
 * queries over them (aggregateSiteEvents, listSiteVisitorSegments), and the `insights.aggregate`
 * job's body (fold raw events into hourly rollups, delete raw events past INSIGHTS_RETENTION_DAYS).
 *
 * Privacy: an event whose request says Do-Not-Track (`DNT: 1`) or Global Privacy Control
 * (`Sec-GPC: 1`) is dropped, as are all events of a site whose customization turns insights off
 * (`insights.enabled: false`, ours); visitors and sessions are stored only as keyed hashes whose
 * key rotates every UTC day (src/sites/insights-privacy.ts); no cookie is read or set.
 */
import type { AppContext } from '../../context.js';
import type { Principal } from '../../auth/principal.js';
import { withTx } from '../../db/pool.js';
import { getSite, type SiteRow } from '../../db/repos/sites.js';
import * as repo from '../../db/repos/site-insights.js';
import { forbidden, invalid, notFound } from '../../core/errors.js';
import { requireSiteInsights } from '../../policies/site-insights.js';
import { effectiveCustomization } from '../../sites/customization.js';
import { MAX_CLOCK_SKEW_MS, toStoredEvent, type SiteInsightsEvent } from '../../sites/insights.js';
import { planQuery, type AggregationInput } from '../../sites/insights-query.js';
import { sessionHash, visitorHash } from '../../sites/insights-privacy.js';
import { toAggregationResult, toVisitorSegment } from '../../presenters/site-insights.js';

/** Whether a site's customization lets it collect insights (ours: `insights.enabled`, default true). */
export function insightsEnabled(customization: Record<string, any> | null | undefined): boolean {
  return effectiveCustomization(customization ?? null).insights?.enabled !== false;
}

/** The site events are tracked for: 404 when unknown (or of another organization), 403 when unpublished. */
export async function trackableSite(app: AppContext, orgId: string | null, siteId: string): Promise<SiteRow> {
  const site = await getSite(app.db, siteId);
  if (!site || (orgId !== null && site.organization_id !== orgId)) throw notFound(`Site "${siteId}" not found`);
  if (!site.published) throw forbidden('The site is not published: it takes no events');
  return site;
}

/** What the request that carried events says about its sender. */
export interface TrackRequest {
  /** The client's address (the socket's, or the one a trusted proxy passed on: TRUST_PROXY): hashed, never stored. */
  address: string;
  userAgent: string;
  /** `DNT: 1` or `Sec-GPC: 1`. */
  optedOut: boolean;
  /** The reader's verified claims (the reader endpoint); API callers give theirs in each event. */
  claims?: Record<string, unknown>;
}

/** Whether events of this request are dropped (answered 204 all the same). */
export function dropsEvents(site: SiteRow, req: TrackRequest): boolean {
  return req.optedOut || !insightsEnabled(site.customization);
}

/** The visitor a request counts as today (the key of the per-visitor rate limit). */
export function requestVisitor(app: AppContext, site: SiteRow, req: TrackRequest, now = new Date()): string {
  return visitorHash(app.secret, site.id, now, req.address, req.userAgent);
}

/** Store checked events (none when dropped); returns how many were stored. */
export async function trackEvents(
  app: AppContext,
  site: SiteRow,
  events: SiteInsightsEvent[],
  req: TrackRequest,
  now = new Date(),
): Promise<number> {
  for (const [i, e] of events.entries())
    if (e.timestamp && Math.abs(Date.parse(e.timestamp) - now.getTime()) > MAX_CLOCK_SKEW_MS)
      throw invalid(`events.${i}.timestamp: must be within 5 minutes of the current time`);
  if (dropsEvents(site, req)) return 0;
  const rows = events.map((e) => {
    const claims = req.claims ?? (e.session.visitorAuthClaims as Record<string, unknown> | undefined) ?? {};
    const stored = toStoredEvent(e, now, claims);
    const ua = e.session.userAgent || req.userAgent;
    const visitor = visitorHash(app.secret, site.id, stored.occurredAt, e.session.ip || req.address, ua);
    return {
      type: stored.type,
      occurredAt: stored.occurredAt,
      visitorHash: visitor,
      sessionHash: sessionHash(app.secret, site.id, stored.occurredAt, e.session.sessionId, visitor),
      dims: stored.dims,
      claims: stored.claims,
    };
  });
  await repo.insertEvents(app.db, site.id, rows);
  return rows.length;
}

export async function aggregateSiteEvents(
  app: AppContext,
  p: Principal,
  orgId: string,
  siteId: string,
  query: AggregationInput,
  now = new Date(),
) {
  const { site } = await requireSiteInsights(app.db, p, orgId, siteId);
  const plan = planQuery(query, now);
  return toAggregationResult(plan, await repo.aggregate(app.db, site.id, plan));
}

/** Visitor segments: visitors grouped by their claims over the last SEGMENT_DAYS days. */
export const SEGMENT_DAYS = 30;

export async function listSiteVisitorSegments(app: AppContext, p: Principal, orgId: string, siteId: string, now = new Date()) {
  const { site } = await requireSiteInsights(app.db, p, orgId, siteId);
  const rows = await repo.segments(
    app.db,
    site.id,
    new Date(now.getTime() - SEGMENT_DAYS * 86_400_000),
    new Date(now.getTime() + 60_000),
    100,
  );
  return { items: rows.map(toVisitorSegment), count: rows.length };
}

export interface InsightsAggregateResult {
  folded: number;
  deleted: number;
}

/**
 * The `insights.aggregate` job: fold raw events into the rollups (batches of `batch`, events
 * received at least `settleMs` ago), then delete folded raw events older than the retention.
 */
export async function aggregateInsights(
  app: AppContext,
  opts: { settleMs?: number; batch?: number; now?: Date } = {},
): Promise<InsightsAggregateResult> {
  const batch = opts.batch ?? 20_000;
  const settleMs = opts.settleMs ?? 10_000;
  let folded = 0;
  for (let i = 0; i < 50; i++) {
    const n = await withTx(app.db, (tx) => repo.foldEvents(tx, batch, settleMs));
    folded += n;
    if (n < batch) break;
  }
  const now = opts.now ?? new Date();
  const deleted = await repo.deleteFoldedBefore(app.db, new Date(now.getTime() - app.config.insights.retentionDays * 86_400_000));
  return { folded, deleted };
}
