// What a reader of a published site may see and where a URL leads, as pure functions over the
// site's structure (no database): conditions filter sections and site spaces (the same rule for
// navigation and for URLs, so nothing hidden leaks by title), URLs follow GitBook's shape
// (`/{section}/{variant}/{page}`, default section and default variant omitted), visitor claims are
// split into signed (a verified token) and unsigned (`visitor.*` parameters, filtered by the
// adaptive schema), and a rendered body yields its "on this page" outline.
import { evaluateCondition, type ConditionContext } from './conditions.js';

export interface ReaderSection {
  id: string;
  path: string;
  title: string;
  condition: string | null;
  is_default: boolean;
  group_id: string | null;
}

export interface ReaderSiteSpace {
  id: string;
  section_id: string | null;
  space_id: string;
  path: string;
  title: string | null;
  condition: string | null;
  hidden: boolean;
  is_default: boolean;
}

/** The part of a site a reader may see: sections in reading order, site spaces per section. */
export interface VisibleSite {
  sections: ReaderSection[];
  /** Site spaces by section id ('' for the root of a site without sections), in order. */
  variants: Map<string, ReaderSiteSpace[]>;
  defaultSection: ReaderSection | null;
}

const key = (sectionId: string | null) => sectionId ?? '';

/** The default of a list: the one marked default, else the first (the marked one may be hidden). */
function defaultOf<T extends { is_default: boolean }>(list: T[]): T | null {
  return list.find((x) => x.is_default) ?? list[0] ?? null;
}

/**
 * Filter a site by the reader's claims. `sections` in reading order (empty for a site without
 * sections); `siteSpaces` in order. A section without any visible site space is left out.
 */
export function visibleSite(sections: ReaderSection[], siteSpaces: ReaderSiteSpace[], ctx: ConditionContext): VisibleSite {
  const variants = new Map<string, ReaderSiteSpace[]>();
  for (const ss of siteSpaces) {
    if (sections.length && ss.section_id === null) continue;
    if (!evaluateCondition(ss.condition, ctx)) continue;
    const list = variants.get(key(ss.section_id)) ?? [];
    list.push(ss);
    variants.set(key(ss.section_id), list);
  }
  const shown = sections.filter((s) => evaluateCondition(s.condition, ctx) && (variants.get(s.id)?.length ?? 0) > 0);
  return { sections: shown, variants, defaultSection: defaultOf(shown) };
}

/** Variants of a section a reader can switch between (hidden ones stay reachable by URL only). */
export function variantsOf(v: VisibleSite, section: ReaderSection | null): ReaderSiteSpace[] {
  return v.variants.get(key(section?.id ?? null)) ?? [];
}

export interface Resolved {
  section: ReaderSection | null;
  siteSpace: ReaderSiteSpace;
  /** Slash-joined page path inside the site space ('' = its first page). */
  pagePath: string;
}

/** Where the path segments under the site base lead, or null (nothing visible there). */
export function resolveSitePath(v: VisibleSite, segments: string[]): Resolved | null {
  let rest = segments.filter(Boolean);
  let section: ReaderSection | null = null;
  if (v.sections.length) {
    const named = rest.length ? v.sections.find((s) => s !== v.defaultSection && s.path === rest[0]) : undefined;
    section = named ?? v.defaultSection;
    if (named) rest = rest.slice(1);
  }
  const variants = variantsOf(v, section);
  const def = defaultOf(variants.filter((x) => !x.hidden)) ?? defaultOf(variants);
  if (!def) return null;
  const named = rest.length ? variants.find((x) => x !== def && x.path === rest[0]) : undefined;
  if (named) rest = rest.slice(1);
  return { section, siteSpace: named ?? def, pagePath: rest.join('/') };
}

/** The path (under the site base, no leading slash) of a page; defaults omitted. */
export function sitePath(v: VisibleSite, section: ReaderSection | null, siteSpace: ReaderSiteSpace, pagePath: string): string {
  const parts: string[] = [];
  if (section && section !== v.defaultSection && section.id !== v.defaultSection?.id) parts.push(section.path);
  const variants = variantsOf(v, section);
  const def = defaultOf(variants.filter((x) => !x.hidden)) ?? defaultOf(variants);
  if (def && siteSpace.id !== def.id) parts.push(siteSpace.path);
  if (pagePath) parts.push(...pagePath.split('/'));
  return parts.map(encodeURIComponent).join('/');
}

/** A stable digest input of what this reader sees (the "audience" of a rendered page). */
export function audienceOf(v: VisibleSite): string {
  return [...v.sections.map((s) => s.id), ...[...v.variants.values()].flat().map((x) => x.id)].join(',');
}

// ---- Claims -------------------------------------------------------------------------------------

const RESERVED_CLAIMS = new Set(['exp', 'iat', 'nbf', 'jti', 'aud', 'iss', 'sub_unsigned']);
const MAX_UNSIGNED = 50;

/** The signed claims of a verified token: its payload minus the registered time/id claims. */
export function signedClaims(payload: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(payload)) if (!RESERVED_CLAIMS.has(k) && k !== 'unsigned') out[k] = v;
  return out;
}

/** A query value as GitBook reads it: true/false/null, numbers, JSON arrays/objects, else the string. */
function parseValue(raw: string): unknown {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (/^[[{]/.test(raw)) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

type SchemaNode = { type?: string; enum?: unknown[]; items?: SchemaNode; properties?: Record<string, SchemaNode> };

/** `value` kept when it has the schema's type (numbers and booleans coerced from strings), else undefined. */
function coerce(value: unknown, schema: SchemaNode, depth = 0): unknown {
  if (depth > 5) return undefined;
  switch (schema.type) {
    case 'boolean':
      return typeof value === 'boolean' ? value : value === 'true' ? true : value === 'false' ? false : undefined;
    case 'number': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      return Number.isFinite(n) ? n : undefined;
    }
    case 'string': {
      const s = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
      if (s === undefined || s.length > 256) return undefined;
      return schema.enum && !schema.enum.includes(s) ? undefined : s;
    }
    case 'array': {
      if (!Array.isArray(value) || !schema.items) return undefined;
      return value
        .slice(0, 100)
        .map((x) => coerce(x, schema.items!, depth + 1))
        .filter((x) => x !== undefined);
    }
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
      return filterBySchema(value as Record<string, unknown>, schema.properties ?? {}, depth + 1);
    }
    default:
      return undefined;
  }
}

function filterBySchema(values: Record<string, unknown>, properties: Record<string, SchemaNode>, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) {
    if (!Object.hasOwn(properties, k)) continue;
    const c = coerce(v, properties[k], depth);
    if (c !== undefined) out[k] = c;
  }
  return out;
}

/**
 * Unsigned claims from `visitor.<path>=<value>` parameters, kept only where the adaptive schema's
 * `properties.unsigned.properties` declares them (with their type); everything else is dropped.
 */
export function unsignedClaims(params: URLSearchParams, schema: Record<string, any> | null): Record<string, unknown> {
  const declared = schema?.properties?.unsigned?.properties as Record<string, SchemaNode> | undefined;
  if (!declared) return {};
  const raw: Record<string, unknown> = {};
  let n = 0;
  for (const [name, value] of params) {
    if (!name.startsWith('visitor.') || ++n > MAX_UNSIGNED) continue;
    const path = name.slice('visitor.'.length).split('.');
    if (path.some((p) => !p || p === '__proto__' || p === 'constructor' || p === 'prototype') || path.length > 5) continue;
    let at = raw;
    for (const p of path.slice(0, -1)) {
      const next = Object.hasOwn(at, p) ? at[p] : undefined;
      at = (typeof next === 'object' && next !== null ? next : (at[p] = {})) as Record<string, unknown>;
    }
    at[path.at(-1)!] = parseValue(value.slice(0, 1024));
  }
  return filterBySchema(raw, declared);
}

/** The condition context of a reader: signed claims, with the unsigned ones under `unsigned`. */
export function readerContext(signed: Record<string, unknown>, unsigned: Record<string, unknown>): ConditionContext {
  return { visitor: { claims: { ...signed, unsigned } } };
}

// ---- Outline ------------------------------------------------------------------------------------

export interface OutlineItem {
  id: string;
  title: string;
  level: number;
}

const decode = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** The h2/h3 headings of a rendered body that carry an id ("on this page"), at most 100. */
export function outlineOf(html: string): OutlineItem[] {
  const out: OutlineItem[] = [];
  const re = /<h([23])\b[^>]*\bid="([^"]+)"[^>]*>([\s\S]*?)<\/h\1>/g;
  for (let m = re.exec(html); m && out.length < 100; m = re.exec(html)) {
    out.push({ level: Number(m[1]), id: decode(m[2]), title: decode(m[3].replace(/<[^>]*>/g, '')).trim() });
  }
  return out;
}

// ---- Edit on git --------------------------------------------------------------------------------

/**
 * The web URL of a page's file in the git repository a space syncs with, or null. `repoUrl` is the
 * space's `gitSync.url` (the repository's tree URL when one was given, else the clone URL): a tree
 * URL (`…/tree/<ref>`) gets the path appended; a repository URL gets `/blob/HEAD/<path>` (GitHub,
 * GitLab and Gitea all resolve it to the default branch). Only http(s) URLs, never credentials.
 */
export function editOnGitUrl(repoUrl: unknown, filePath: string | undefined): string | null {
  if (typeof repoUrl !== 'string' || !filePath) return null;
  let url: URL;
  try {
    url = new URL(repoUrl);
  } catch {
    return null;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) return null;
  const base = `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\.git$/, '')}`;
  const path = filePath.split('/').filter(Boolean).map(encodeURIComponent).join('/');
  return /\/(tree|src)\//.test(url.pathname) ? `${base}/${path}` : `${base}/blob/HEAD/${path}`;
}
