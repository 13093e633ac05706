// Queries over site insights (aggregateSiteEvents): the description's SiteInsightsQueryEventsAggregation
// checked and turned into a plan of known columns, which src/db/repos/site-insights.ts turns into SQL.
// A column the platform cannot answer (visitorGeoPoint, visitorClaimProperty) is a 400.
import { z } from 'zod';
import { invalid } from '../core/errors.js';
import type { ColumnSource, PlannedColumn, QueryPlan } from '../db/repos/site-insights.js';

export type { ColumnSource, PlannedColumn, PlannedFilter, QueryPlan } from '../db/repos/site-insights.js';

const dim = (key: string, nulls: PlannedColumn['nulls'] = 'keep', cast?: 'int' | 'bool' | 'json') =>
  ({ source: { src: 'dim', key, cast }, nulls }) as const;

const CATALOG: Record<string, { source: ColumnSource; nulls: PlannedColumn['nulls'] }> = {
  dayOfWeek: { source: { src: 'dow' }, nulls: 'keep' },
  hourOfDay: { source: { src: 'hod' }, nulls: 'keep' },
  url: dim('url', 'drop'),
  urlPath: dim('urlPath', 'empty'),
  eventType: { source: { src: 'type' }, nulls: 'keep' },
  eventsCount: { source: { src: 'agg', agg: 'events' }, nulls: 'keep' },
  sessionsCount: { source: { src: 'agg', agg: 'sessions' }, nulls: 'keep' },
  visitorsCount: { source: { src: 'agg', agg: 'visitors' }, nulls: 'keep' },
  siteSection: dim('siteSection'),
  siteSpace: dim('siteSpace'),
  siteShareKey: dim('siteShareKey'),
  displayContext: dim('displayContext', 'drop'),
  page: { source: { src: 'page' }, nulls: 'keep' },
  visitorGeoCountry: { source: { src: 'null' }, nulls: 'keep' },
  visitorDevice: dim('device', 'drop'),
  visitorBrowser: dim('browser', 'drop'),
  visitorOS: dim('os', 'drop'),
  visitorBot: dim('bot'),
  visitorLanguage: dim('language'),
  eventLinkTargetValue: dim('linkTarget', 'drop', 'json'),
  eventLinkTargetKind: dim('linkKind', 'drop'),
  eventLinkTargetDomain: dim('linkDomain'),
  eventLinkPosition: dim('linkPosition', 'drop'),
  eventAPIOperationPath: dim('apiPath'),
  eventAPIOperationMethod: dim('apiMethod'),
  eventLLMSVariant: dim('llmsVariant'),
  eventPageNotFoundType: { source: { src: 'null' }, nulls: 'keep' },
  eventMarkdownSource: dim('markdownSource'),
  eventSearchQuery: dim('searchQuery', 'drop'),
  eventSearchResultRecordId: dim('searchResultRecordId'),
  eventPageFeedbackRating: dim('feedbackRating', 'drop'),
  eventPageFeedbackComment: dim('feedbackComment', 'drop'),
  eventAskResponseRating: dim('askRating', 'drop', 'int'),
  pageFeedbackRating: { source: { src: 'agg', agg: 'feedback' }, nulls: 'keep' },
  askResponseRating: { source: { src: 'agg', agg: 'askRating' }, nulls: 'keep' },
  referrer: dim('referrer', 'empty'),
  referrerDomain: dim('referrerDomain', 'empty'),
  utmSource: dim('utmSource', 'empty'),
  utmMedium: dim('utmMedium', 'empty'),
  utmCampaign: dim('utmCampaign', 'empty'),
  utmTerm: dim('utmTerm', 'empty'),
  utmContent: dim('utmContent', 'empty'),
  visitorAuthenticated: dim('authenticated', 'keep', 'bool'),
  eventAdDomain: dim('adDomain', 'drop'),
  eventAdPlacement: dim('adPlacement', 'drop'),
  eventTrademarkPlacement: dim('trademarkPlacement', 'drop'),
  // Ours, for filters only (answers name only the description's columns): how many results a
  // search_type_query found, as the reader script reports it.
  eventSearchResultsCount: dim('searchResultsCount', 'drop', 'int'),
};
const FILTER_ONLY = new Set(['eventSearchResultsCount']);
const UNSUPPORTED = new Set(['visitorGeoPoint', 'visitorClaimProperty']);

const columnInput = z
  .object({
    column: z.string().max(64),
    interval: z.enum(['hour', 'day', 'week', 'month']).optional(),
    claim: z.string().min(1).max(128).optional(),
    precision: z.number().int().min(0).max(15).optional(),
  })
  .passthrough();
const filterValue = z.union([z.string().max(2048), z.number(), z.boolean(), z.null(), z.record(z.string(), z.unknown())]);
const filterInput = columnInput.extend({
  values: z.array(filterValue).max(200),
  operator: z.enum(['in', 'notIn', 'greaterThan', 'greaterThanOrEqual', 'lessThan', 'lessThanOrEqual']).optional(),
});
const timestamp = z.string().datetime({ offset: true });

export const aggregationBody = z
  .object({
    select: z.array(columnInput).max(30).optional(),
    where: z.array(filterInput).max(30).optional(),
    groupBy: z.array(columnInput).max(10).optional(),
    order: z.object({ by: columnInput, direction: z.enum(['asc', 'desc']) }).optional(),
    range: z.union([
      z.enum(['lastYear', 'last3Months', 'last30Days', 'last7Days', 'last24Hours']),
      z.object({ from: timestamp, to: timestamp }).passthrough(),
    ]),
    limit: z.number().int().min(1).max(1000).optional(),
  })
  .passthrough();
export type AggregationInput = z.infer<typeof aggregationBody>;

function plan(c: z.infer<typeof columnInput>, where: string, filter = false): PlannedColumn {
  if (UNSUPPORTED.has(c.column)) throw invalid(`${where}: the column "${c.column}" is not available on this platform`);
  if (c.column === 'datetime') {
    const interval = c.interval ?? 'day';
    return { out: { column: 'datetime', interval }, source: { src: 'datetime', interval }, nulls: 'keep', key: `datetime:${interval}` };
  }
  if (c.column === 'visitorClaim') {
    if (!c.claim) throw invalid(`${where}: visitorClaim needs a claim`);
    return {
      out: { column: 'visitorClaim', claim: c.claim },
      source: { src: 'claim', claim: c.claim },
      nulls: 'drop', // the description's values are strings: visitors without the claim are left out
      key: `claim:${c.claim}`,
    };
  }
  const known = CATALOG[c.column];
  if (!known || (!filter && FILTER_ONLY.has(c.column))) throw invalid(`${where}: unknown column "${c.column}"`);
  return { out: { column: c.column }, ...known, key: c.column };
}

const PRESETS: Record<string, number> = {
  last24Hours: 1,
  last7Days: 7,
  last30Days: 30,
  last3Months: 91,
  lastYear: 365,
};

/** Check a query and plan it; `now` fixes the presets' end. */
export function planQuery(q: AggregationInput, now: Date): QueryPlan {
  let from: Date;
  let to: Date;
  if (typeof q.range === 'string') {
    to = now;
    from = new Date(now.getTime() - PRESETS[q.range] * 86_400_000);
  } else {
    from = new Date(q.range.from);
    to = new Date(q.range.to);
    if (!(from < to)) throw invalid('range: `from` must be before `to`');
    if (to.getTime() - from.getTime() > 3 * 366 * 86_400_000) throw invalid('range: at most three years');
  }
  const groupBy = (q.groupBy ?? []).map((c, i) => plan(c, `groupBy.${i}`));
  for (const g of groupBy) if (g.source.src === 'agg') throw invalid(`groupBy: "${g.key}" is an aggregate, it cannot be grouped by`);
  let output = q.select?.length ? q.select.map((c, i) => plan(c, `select.${i}`)) : [...groupBy, plan({ column: 'eventsCount' }, 'select')];
  // A plain column selected is grouped by too.
  for (const c of output) if (c.source.src !== 'agg' && !groupBy.some((g) => g.key === c.key)) groupBy.push(c);
  output = output.filter((c, i) => output.findIndex((o) => o.key === c.key) === i);
  const where = (q.where ?? []).map((f, i) => {
    const column = plan(f, `where.${i}`, true);
    if (column.source.src === 'agg' && (column.source.agg === 'feedback' || column.source.agg === 'askRating'))
      throw invalid(`where.${i}: "${column.key}" cannot be filtered on; filter on eventPageFeedbackRating or eventAskResponseRating`);
    const operator = f.operator ?? 'in';
    if (operator !== 'in' && operator !== 'notIn' && f.values.length !== 1)
      throw invalid(`where.${i}: the operator "${operator}" takes exactly one value`);
    for (const v of f.values)
      if (
        v !== null &&
        typeof v === 'object' &&
        column.source.src !== 'page' &&
        !(column.source.src === 'dim' && column.source.cast === 'json')
      )
        throw invalid(`where.${i}: values of "${column.key}" are not objects`);
    if (column.source.src === 'datetime')
      for (const v of f.values)
        if (typeof v !== 'string' || Number.isNaN(Date.parse(v))) throw invalid(`where.${i}: values must be timestamps`);
    return { column, values: f.values, operator };
  });
  let order: QueryPlan['order'] = null;
  if (q.order) {
    const column = plan(q.order.by, 'order.by');
    if (column.source.src !== 'agg' && !groupBy.some((g) => g.key === column.key))
      throw invalid('order.by: order by an aggregate or a column that is grouped by');
    order = { column, direction: q.order.direction };
  }
  return { from, to, output, groupBy, where, order, limit: q.limit ?? 1000 };
}
