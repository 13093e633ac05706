// Site insights answers as the 0.202.0 description shapes them (SiteInsightsQueryEventsAggregationResult,
// SiteInsightsVisitorSegment).
import type { QueryPlan, SegmentRow } from '../db/repos/site-insights.js';

function value(v: unknown): unknown {
  return v instanceof Date ? v.toISOString() : v;
}

export function toAggregationResult(plan: QueryPlan, columns: unknown[][]) {
  return { columns: plan.output.map((c, i) => ({ ...c.out, values: columns[i].map(value) })) };
}

/** A segment's title: its claims in a line ("Anonymous visitors" without any). */
function segmentTitle(claims: Record<string, unknown>): string {
  const parts = Object.entries(claims)
    .slice(0, 4)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  if (!parts.length) return 'Anonymous visitors';
  const title = parts.join(', ') + (Object.keys(claims).length > 4 ? ', …' : '');
  return title.length > 200 ? `${title.slice(0, 199)}…` : title;
}

export function toVisitorSegment(r: SegmentRow) {
  return { title: segmentTitle(r.claims), claims: r.claims, events: r.events, visitors: r.visitors, sessions: r.sessions };
}
