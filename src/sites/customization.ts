// Site customization: the full settings object of both description versions (0.202.0's
// `SiteCustomizationSettings` plus 0.137.0's `pdf`, `git` and `pageActions.{externalAI,markdown}`),
// its defaults, the input schema of a PUT (full replacement: what is left out takes its default),
// and per-site-space overrides (partial; null clears a field).
import { z } from 'zod';
import { conditionError } from './conditions.js';

const hex = z.string().regex(/^#(?:[0-9a-fA-F]{3}){1,2}$/, { message: 'must be a hex color like #346ddb' });
const themedColor = z.object({ light: hex, dark: hex }).strict();
const url = z.string().url().max(2048);
const themedUrl = z.object({ light: url, dark: url }).strict();
const refId = z.string().min(1).max(128);
/** The ContentRef kinds a header, footer or announcement link may point to. */
const contentRef = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('url'), url }).strict(),
  z.object({ kind: z.literal('page'), page: refId, space: refId.optional() }).strict(),
  z.object({ kind: z.literal('anchor'), anchor: z.string().min(1).max(256), page: refId.optional(), space: refId.optional() }).strict(),
  z.object({ kind: z.literal('file'), file: refId, space: refId.optional() }).strict(),
  z.object({ kind: z.literal('space'), space: refId }).strict(),
  z.object({ kind: z.literal('collection'), collection: refId }).strict(),
  z.object({ kind: z.literal('user'), user: refId }).strict(),
]);
const contentLink = z.object({ title: z.string().max(64), to: contentRef }).strict();
const condition = z
  .string()
  .max(1024)
  .superRefine((v, ctx) => {
    const error = conditionError(v);
    if (error) ctx.addIssue({ code: 'custom', message: error });
  });
const fonts = [
  'ABCFavorit',
  'Inter',
  'Roboto',
  'RobotoSlab',
  'OpenSans',
  'SourceSansPro',
  'Lato',
  'Ubuntu',
  'Raleway',
  'Merriweather',
  'Overpass',
  'NotoSans',
  'IBMPlexSerif',
  'Poppins',
  'FiraSans',
] as const;
const monoFonts = [
  'FiraCode',
  'IBMPlexMono',
  'JetBrainsMono',
  'SourceCodePro',
  'RobotoMono',
  'SpaceMono',
  'DMMono',
  'Inconsolata',
] as const;
const fontDefinition = z
  .object({ id: z.string(), custom: z.boolean(), fontFamily: z.string(), fontFaces: z.array(z.unknown()) })
  .passthrough();
const codeTheme = z.string().regex(/^[a-z0-9-]{1,40}$/, { message: 'must be a code theme name' });
const themedCode = z.object({ light: codeTheme, dark: codeTheme }).strict();
export const PAGE_ACTIONS = ['assistant', 'external-ai', 'markdown', 'mcp', 'git', 'pdf'] as const;

const styling = z
  .object({
    theme: z.enum(['clean', 'muted', 'bold', 'gradient']),
    primaryColor: themedColor,
    tint: z.object({ color: themedColor }).strict(),
    infoColor: themedColor,
    successColor: themedColor,
    warningColor: themedColor,
    dangerColor: themedColor,
    corners: z.enum(['straight', 'rounded', 'circular']),
    depth: z.enum(['subtle', 'flat']),
    links: z.enum(['default', 'accent']),
    font: z.union([z.enum(fonts), fontDefinition]),
    headingFont: z.union([z.enum(fonts), fontDefinition, z.null()]),
    monospaceFont: z.union([z.enum(monoFonts), fontDefinition]),
    background: z.enum(['plain', 'match']),
    icons: z.enum(['regular', 'solid', 'duotone', 'light', 'thin']),
    codeTheme: z.object({ default: themedCode, openapi: themedCode }).partial().strict(),
    sidebar: z
      .object({ background: z.enum(['default', 'filled']), list: z.enum(['default', 'pill', 'line']) })
      .partial()
      .strict(),
    search: z.enum(['prominent', 'subtle']),
  })
  .partial()
  .strict();

const favicon = z.union([
  z.object({ icon: themedUrl }).strict(),
  z.object({ emoji: z.string().min(1).max(32) }).strict(),
  z.object({}).strict(),
]);

/** The body of PUT customization (both description versions; every section optional). */
export const customizationInput = z
  .object({
    title: z.string().min(2).max(128),
    localizedTitle: z.record(z.string().max(16), z.string().max(128)),
    styling,
    internationalization: z.object({ locale: z.enum(['en', 'fr', 'es', 'zh', 'ja', 'de', 'nl', 'no', 'pt-br', 'ru']) }).strict(),
    favicon,
    header: z
      .object({
        preset: z.enum(['default', 'bold', 'contrast', 'custom', 'none']),
        logo: themedUrl,
        primaryLink: contentRef,
        backgroundColor: themedColor,
        linkColor: themedColor,
        links: z
          .array(
            z
              .object({
                title: z.string().max(128),
                style: z.enum(['link', 'button-primary', 'button-secondary']),
                to: contentRef.nullable(),
                links: z.array(contentLink).max(50),
                condition,
              })
              .partial({ style: true, links: true, condition: true, to: true })
              .strict(),
          )
          .max(50),
      })
      .partial()
      .strict(),
    footer: z
      .object({
        logo: themedUrl,
        groups: z.array(z.object({ title: z.string().max(128), links: z.array(contentLink).max(50) }).strict()).max(20),
        copyright: z.string().max(512),
      })
      .partial()
      .strict(),
    announcement: z
      .object({
        enabled: z.boolean(),
        message: z.string().min(2).max(128),
        link: contentLink,
        style: z.enum(['info', 'warning', 'danger', 'success']),
      })
      .partial({ link: true })
      .strict(),
    themes: z
      .object({ default: z.enum(['light', 'dark', 'system']), toggeable: z.boolean() })
      .partial()
      .strict(),
    feedback: z.object({ enabled: z.boolean() }).strict(),
    ai: z
      .object({ mode: z.enum(['none', 'search', 'assistant']), greeting: z.string().max(256) })
      .partial()
      .strict(),
    advancedCustomization: z.object({ enabled: z.boolean() }).strict(),
    trademark: z.object({ enabled: z.boolean() }).strict(),
    externalLinks: z.object({ target: z.enum(['self', 'blank']) }).strict(),
    pagination: z.object({ enabled: z.boolean() }).strict(),
    pageActions: z
      .object({ items: z.array(z.enum(PAGE_ACTIONS)).max(PAGE_ACTIONS.length), externalAI: z.boolean(), markdown: z.boolean() })
      .partial()
      .strict(),
    pdf: z.object({ enabled: z.boolean() }).strict(),
    git: z.object({ showEditLink: z.boolean() }).strict(),
    privacyPolicy: z.object({ url }).partial().strict(),
    socialPreview: z.object({ url }).partial().strict(),
    socialAccounts: z
      .array(
        z
          .object({
            platform: z.enum([
              'twitter',
              'instagram',
              'facebook',
              'linkedin',
              'github',
              'discord',
              'slack',
              'youtube',
              'tiktok',
              'reddit',
              'bluesky',
              'mastodon',
              'threads',
              'medium',
            ]),
            handle: z.string().min(1).max(128),
            display: z.object({ footer: z.boolean(), header: z.boolean() }).strict(),
          })
          .strict(),
      )
      .max(10),
    // `enabled` is ours (docs/sites.md "Insights"): false turns the site's insights off.
    insights: z.object({ trackingCookie: z.boolean().optional(), enabled: z.boolean().optional() }).strict(),
  })
  .partial()
  .strict();

export type CustomizationInput = z.infer<typeof customizationInput>;
type Settings = Record<string, any>;

const themed = (light: string, dark = light) => ({ light, dark });

/** Every field either description version requires, with its default. */
export function defaultCustomization(): Settings {
  return {
    styling: {
      theme: 'clean',
      primaryColor: themed('#346DDB'),
      infoColor: themed('#787878'),
      successColor: themed('#00C950'),
      warningColor: themed('#FE9A00'),
      dangerColor: themed('#FB2C36'),
      corners: 'rounded',
      depth: 'subtle',
      links: 'default',
      font: 'Inter',
      monospaceFont: 'IBMPlexMono',
      background: 'plain',
      icons: 'regular',
      codeTheme: { default: themed('default-light', 'default-dark'), openapi: themed('default-light', 'default-dark') },
      sidebar: { background: 'default', list: 'default' },
      search: 'prominent',
    },
    internationalization: { locale: 'en' },
    favicon: {},
    header: { preset: 'default', links: [] },
    footer: { groups: [] },
    themes: { default: 'light', toggeable: true },
    feedback: { enabled: false },
    ai: { mode: 'none' },
    advancedCustomization: { enabled: true },
    trademark: { enabled: true },
    externalLinks: { target: 'self' },
    pagination: { enabled: true },
    pageActions: { items: ['markdown', 'pdf'], externalAI: false, markdown: true },
    pdf: { enabled: true },
    git: { showEditLink: false },
    privacyPolicy: {},
    socialPreview: {},
    socialAccounts: [],
    insights: { trackingCookie: true },
  };
}

const isObject = (v: unknown): v is Settings => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `over` laid on `base`, objects merged recursively (arrays and scalars replace). */
function deepMerge(base: Settings, over: Settings): Settings {
  const out: Settings = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    out[k] = isObject(v) && isObject(base[k]) && k !== 'favicon' ? deepMerge(base[k], v) : v;
  }
  return out;
}

/**
 * Keep the two page-action shapes in step: 0.202.0's ordered `items` is the truth when given;
 * otherwise 0.137.0's booleans (`pageActions.externalAI`, `.markdown`, `pdf.enabled`,
 * `git.showEditLink`) switch their action on or off in the current list.
 */
function syncPageActions(s: Settings, given: CustomizationInput): Settings {
  let items: string[] = [...(s.pageActions.items as string[])];
  if (!given.pageActions?.items) {
    const toggles: [string, boolean | undefined][] = [
      ['external-ai', given.pageActions?.externalAI],
      ['markdown', given.pageActions?.markdown],
      ['pdf', given.pdf?.enabled],
      ['git', given.git?.showEditLink],
    ];
    for (const [action, on] of toggles) {
      if (on === true && !items.includes(action)) items.push(action);
      if (on === false) items = items.filter((x) => x !== action);
    }
  }
  return {
    ...s,
    pageActions: { items, externalAI: items.includes('external-ai'), markdown: items.includes('markdown') },
    pdf: { enabled: items.includes('pdf') },
    git: { showEditLink: items.includes('git') },
  };
}

/** The stored settings of a PUT: the defaults with what the body gives laid over them. */
export function normalizeCustomization(input: CustomizationInput): Settings {
  return completeHeader(syncPageActions(deepMerge(defaultCustomization(), input), input));
}

/** Header items: `to` and `links` are required in responses. */
function completeHeader(s: Settings): Settings {
  return { ...s, header: { ...s.header, links: (s.header.links as Settings[]).map((l) => ({ to: null, links: [], ...l })) } };
}

/** The stored settings, completed with defaults (for rows written by an older version). */
export function effectiveCustomization(stored: Settings | null): Settings {
  return stored ? deepMerge(defaultCustomization(), stored) : defaultCustomization();
}

/** Body of PATCH site-space customization: the same sections, each optional, `null` clearing it. */
export const customizationOverrideInput = z.record(z.string().max(64), z.unknown()).superRefine((body, ctx) => {
  const shape = customizationInput.shape as Record<string, z.ZodType>;
  for (const [k, v] of Object.entries(body)) {
    const field = shape[k];
    if (!field) {
      ctx.addIssue({ code: 'custom', message: 'unknown customization setting', path: [k] });
      continue;
    }
    if (v === null) continue;
    const r = field.safeParse(v);
    if (!r.success) for (const issue of r.error.issues) ctx.addIssue({ ...issue, path: [k, ...issue.path] } as never);
  }
});

/** A site space's stored overrides after a PATCH: null removes a setting, objects merge. */
export function applyOverridePatch(current: Settings | null, patch: Record<string, unknown>): Settings {
  const out: Settings = { ...(current ?? {}) };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = isObject(v) && isObject(out[k]) ? deepMerge(out[k], v) : v;
  }
  return out;
}

/** What a site space shows: the site's settings with its overrides laid over them. */
export function withOverrides(site: Settings, overrides: Settings | null): Settings {
  if (!overrides) return site;
  const merged = deepMerge(site, overrides);
  return completeHeader(syncPageActions(merged, overrides as CustomizationInput));
}

/**
 * The settings with every image a reader's browser loads from another origin (header and footer
 * logos, the favicon icon; light and dark) mapped through `proxy`, so a page needs nothing from
 * other origins. The social preview stays as written: crawlers fetch it, not the reader.
 */
export function withProxiedImages(settings: Settings, proxy: (url: string) => string): Settings {
  const map = (v: unknown) => (typeof v === 'string' && /^https?:\/\//i.test(v) ? proxy(v) : v);
  const pair = (t: any) => (t && typeof t === 'object' ? { ...t, light: map(t.light), dark: map(t.dark) } : t);
  const out: Settings = { ...settings };
  if (out.header?.logo) out.header = { ...out.header, logo: pair(out.header.logo) };
  if (out.footer?.logo) out.footer = { ...out.footer, logo: pair(out.footer.logo) };
  if (out.favicon?.icon) out.favicon = { ...out.favicon, icon: pair(out.favicon.icon) };
  return out;
}
