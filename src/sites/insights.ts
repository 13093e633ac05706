// Site insights events (issue 29, item 3): the 0.202.0 description's SiteInsightsEvent, checked
// and bounded, and turned into what is stored: a type, a time, and flat dimensions a query groups
// or filters by (src/sites/insights-query.ts). Nothing here knows HTTP or the database.
//
// Every event type of the description is accepted and stored. Our one addition: a
// `search_type_query` may carry `resultsCount` (how many results the reader saw), so searches that
// found nothing can be listed (the `eventSearchResultsCount` filter). Cookies, the deprecated
// visitor token and the client's visitorId are read and dropped: never stored.
import { z } from 'zod';

export const MAX_EVENTS = 50;
export const MAX_BODY_BYTES = 64 * 1024;
/** The description: "Must be within 5 minutes of the current time". */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

const str = (max: number) => z.string().max(max);
const id = z.string().max(128).nullable();
const jsonBounded = (max: number) => (v: unknown) => JSON.stringify(v ?? null).length <= max;

const session = z
  .object({
    visitorId: str(128),
    sessionId: str(128),
    cookies: z.record(str(256), str(4096)).refine(jsonBounded(8192), 'too large'),
    ip: str(64).optional(),
    userAgent: str(1024),
    language: str(64).nullable(),
    referrer: str(2048).nullable(),
    visitorAuthToken: str(8192).nullable().optional(),
    visitorAuthClaims: z.record(z.string(), z.unknown()).refine(jsonBounded(4096), 'too large (4 KB at most)').optional(),
  })
  .passthrough();

const location = z
  .object({
    url: z.string().url().max(2048),
    displayContext: z.enum(['site', 'server', 'embed', 'mcp']).optional(),
    siteSection: id,
    siteSpace: id,
    siteShareKey: id,
    space: id,
    revision: id,
    page: id,
  })
  .passthrough();

const base = {
  session,
  location,
  timestamp: z.string().datetime({ offset: true }).optional(),
};

const rating = z.enum(['bad', 'ok', 'good']);
const contentRef = z
  .object({ kind: z.enum(['file', 'url', 'page', 'anchor', 'user', 'collection', 'space', 'reusable-content', 'tag', 'openapi']) })
  .passthrough()
  .refine(jsonBounded(2560), 'too large');
const operation = z.object({ path: str(2048), method: str(16) }).passthrough();
const ad = z.object({ domain: str(256), zoneId: str(128), placement: z.enum(['aside']) }).passthrough();

const ev = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.object({ ...base, type: z.literal(type), ...shape }).passthrough();

export const siteInsightsEvent = z.discriminatedUnion('type', [
  ev('page_view', {}),
  ev('page_markdown_request', { markdownSource: z.enum(['page-action']).optional() }),
  ev('search_open', {}),
  ev('search_type_query', { query: str(512), resultsCount: z.number().int().min(0).max(1_000_000).optional() }),
  ev('search_open_result', {
    query: str(512),
    result: z.union([z.object({ spaceId: str(128), pageId: str(128) }).passthrough(), z.object({ recordId: str(256) }).passthrough()]),
  }),
  ev('page_post_feedback', { feedback: z.object({ rating }).passthrough() }),
  ev('page_post_feedback_comment', { feedback: z.object({ rating, comment: z.string().min(1).max(512) }).passthrough() }),
  ev('agent_feedback', {}),
  ev('ask_question', { query: str(2048), goal: str(2048).optional() }),
  ev('ask_view', {}),
  ev('ask_rate_response', { query: str(2048), rating: z.union([z.literal(1), z.literal(-1)]), responseId: str(128) }),
  ev('link_click', {
    link: z.object({ target: contentRef, position: z.enum(['announcement', 'header', 'footer', 'sidebar', 'content']) }),
  }),
  ev('api_client_open', { operation }),
  ev('api_client_request', { operation }),
  ev('trademark_click', { placement: z.enum(['sidebar', 'ad', 'footer', 'pdf', 'embed']) }),
  ev('ad_click', { ad }),
  ev('ad_display', { ad }),
  ev('llms_request', { llmsVariant: z.enum(['standard', 'full']) }),
  ev('mcp_request', {}),
  ev('rss_request', {}),
]);
export type SiteInsightsEvent = z.infer<typeof siteInsightsEvent>;

export const trackEventsBody = z.object({ events: z.array(siteInsightsEvent).max(MAX_EVENTS) }).passthrough();

/** The flat dimensions of a stored event (absent keys are null). */
export type Dims = Record<string, string | number | boolean | Record<string, unknown> | null>;

export interface StoredEvent {
  type: string;
  occurredAt: Date;
  dims: Dims;
  claims: Record<string, unknown>;
}

/** The user agent's browser, device, OS and bot, in the description's enums. */
export function userAgentFacts(ua: string): { browser: string; device: string; os: string; bot: string | null } {
  const bots: [RegExp, string][] = [
    [/googlebot/i, 'googlebot'],
    [/bingbot/i, 'bingbot'],
    [/duckduckbot/i, 'duckduckbot'],
    [/facebookexternalhit|facebookbot/i, 'facebookbot'],
    [/applebot/i, 'applebot'],
    [/gptbot/i, 'gptbot'],
    [/chatgpt/i, 'chatgpt'],
    [/claudebot/i, 'claudebot'],
    [/claude-code/i, 'claude-code'],
    [/perplexity/i, 'perplexity'],
    [/ccbot/i, 'ccbot'],
    [/amazonbot/i, 'amazonbot'],
    [/bytespider/i, 'bytespider'],
  ];
  let bot: string | null = null;
  for (const [re, name] of bots)
    if (re.test(ua)) {
      bot = name;
      break;
    }
  if (!bot && /bot\b|crawler|spider|headlesschrome/i.test(ua)) bot = 'unknown';
  const browser = /edg\//i.test(ua)
    ? 'edge'
    : /opr\/|opera/i.test(ua)
      ? 'opera'
      : /firefox\//i.test(ua)
        ? 'firefox'
        : /chrom(e|ium)\//i.test(ua)
          ? 'chrome'
          : /msie |trident\//i.test(ua)
            ? 'ie'
            : /safari\//i.test(ua)
              ? 'safari'
              : 'unknown';
  const os = /windows/i.test(ua)
    ? 'windows'
    : /iphone|ipad|ipod/i.test(ua)
      ? 'ios'
      : /android/i.test(ua)
        ? 'android'
        : /mac os x|macintosh/i.test(ua)
          ? 'macos'
          : /linux|x11/i.test(ua)
            ? 'linux'
            : 'unknown';
  const device = /ipad|tablet/i.test(ua) ? 'tablet' : /mobi|iphone|android/i.test(ua) ? 'mobile' : ua ? 'desktop' : 'unknown';
  return { browser, device, os, bot };
}

function hostOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).hostname || null;
  } catch {
    return null;
  }
}

/** Query parameters that carry access (src/reader/access.ts), dropped from stored URLs. */
const SECRET_PARAMS = ['share', 'jwt_token', 'token', 'visitor_token', 'key'];

function withoutSecrets(href: string): string {
  try {
    const u = new URL(href);
    for (const secret of SECRET_PARAMS) u.searchParams.delete(secret);
    return u.href;
  } catch {
    return href;
  }
}

/** Flatten one checked event into what is stored (`now`: the time it arrived). */
export function toStoredEvent(e: SiteInsightsEvent, now: Date, claims: Record<string, unknown>): StoredEvent {
  const at = e.timestamp ? new Date(e.timestamp) : now;
  const ua = userAgentFacts(e.session.userAgent ?? '');
  const url = new URL(e.location.url);
  // Credentials a reader's URL may carry (share keys, visitor tokens, preview tokens) are never kept.
  for (const secret of SECRET_PARAMS) url.searchParams.delete(secret);
  url.hash = '';
  const referrer = e.session.referrer ? withoutSecrets(e.session.referrer) : null;
  const d: Dims = {
    url: url.href,
    urlPath: url.pathname,
    displayContext: e.location.displayContext ?? 'site',
    siteSection: e.location.siteSection ?? null,
    siteSpace: e.location.siteSpace ?? null,
    siteShareKey: e.location.siteShareKey ?? null,
    space: e.location.space ?? null,
    revision: e.location.revision ?? null,
    page: e.location.page ?? null,
    language: e.session.language ? e.session.language.slice(0, 35) : null,
    browser: ua.browser,
    device: ua.device,
    os: ua.os,
    bot: ua.bot,
    referrer: referrer ? referrer.slice(0, 2048) : null,
    referrerDomain: hostOf(referrer),
    authenticated: Object.keys(claims).length > 0,
  };
  for (const [key, param] of [
    ['utmSource', 'utm_source'],
    ['utmMedium', 'utm_medium'],
    ['utmCampaign', 'utm_campaign'],
    ['utmTerm', 'utm_term'],
    ['utmContent', 'utm_content'],
  ] as const) {
    const v = url.searchParams.get(param);
    if (v) d[key] = v.slice(0, 256);
  }
  switch (e.type) {
    case 'page_markdown_request':
      d.markdownSource = e.markdownSource ?? null;
      break;
    case 'search_type_query':
      d.searchQuery = e.query;
      d.searchResultsCount = e.resultsCount ?? null;
      break;
    case 'search_open_result':
      d.searchQuery = e.query;
      d.searchResultRecordId = 'recordId' in e.result ? String(e.result.recordId) : String(e.result.pageId);
      break;
    case 'page_post_feedback':
      d.feedbackRating = e.feedback.rating;
      break;
    case 'page_post_feedback_comment':
      d.feedbackRating = e.feedback.rating;
      d.feedbackComment = e.feedback.comment;
      break;
    case 'ask_question':
      d.askQuery = e.query;
      break;
    case 'ask_rate_response':
      d.askQuery = e.query;
      d.askRating = e.rating;
      break;
    case 'link_click': {
      const t = e.link.target as Record<string, unknown>;
      d.linkTarget = t;
      d.linkKind = String(t.kind);
      d.linkDomain = t.kind === 'url' && typeof t.url === 'string' ? hostOf(t.url) : null;
      d.linkPosition = e.link.position;
      break;
    }
    case 'api_client_open':
    case 'api_client_request':
      d.apiPath = e.operation.path;
      d.apiMethod = e.operation.method.toUpperCase();
      break;
    case 'trademark_click':
      d.trademarkPlacement = e.placement;
      break;
    case 'ad_click':
    case 'ad_display':
      d.adDomain = e.ad.domain;
      d.adPlacement = e.ad.placement;
      break;
    case 'llms_request':
      d.llmsVariant = e.llmsVariant;
      break;
  }
  for (const k of Object.keys(d)) if (d[k] === null) delete d[k];
  return { type: e.type, occurredAt: at, dims: d, claims };
}
