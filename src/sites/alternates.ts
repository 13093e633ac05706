// hreflang alternates of a reader page (pure): the same page in each language variant of its
// section, as `<link rel="alternate" hreflang>` in the page head and `<xhtml:link>` in sitemap.xml.
// The variants considered are those every page of the section lists in its variant switcher
// (visible to the reader's claims, hidden ones left out), so the set a page announces is the same
// from each of its members, as search engines require (links must be reciprocal).
import { variantsOf, type ReaderSection, type ReaderSiteSpace, type VisibleSite } from './reader.js';

export interface Alternate {
  /** A language tag (`fr`, `pt-BR`) or `x-default`. */
  hreflang: string;
  href: string;
}

/** Bound on the variants of one section looked at (the switcher's own bound). */
export const MAX_ALTERNATE_VARIANTS = 50;

/** A space's language code as hreflang writes it (`pt-br` → `pt-BR`), or null when it is none. */
export function hreflangOf(language: string | null | undefined): string | null {
  if (!language || language.length > 35 || !/^[a-z]{2,3}(?:-[a-z0-9]{2,8})*$/i.test(language)) return null;
  const [primary, ...rest] = language.split('-');
  const subtag = (s: string) =>
    s.length === 2
      ? s.toUpperCase()
      : s.length === 4 && /^[a-z]+$/i.test(s)
        ? s[0].toUpperCase() + s.slice(1).toLowerCase()
        : s.toLowerCase();
  return [primary.toLowerCase(), ...rest.map(subtag)].join('-');
}

/** The variants of a section alternates may name: the switchable ones (not hidden), bounded. */
export function alternateVariants(v: VisibleSite, section: ReaderSection | null): ReaderSiteSpace[] {
  return variantsOf(v, section)
    .filter((x) => !x.hidden)
    .slice(0, MAX_ALTERNATE_VARIANTS);
}

/** The section's default variant as URLs have it (the one whose path segment is omitted). */
function defaultVariant(v: VisibleSite, section: ReaderSection | null): ReaderSiteSpace | null {
  const all = variantsOf(v, section);
  const shown = all.filter((x) => !x.hidden);
  return shown.find((x) => x.is_default) ?? shown[0] ?? all.find((x) => x.is_default) ?? all[0] ?? null;
}

export interface AlternateInputs {
  /** The language of a variant (its space's), or null. */
  languageOf: (ss: ReaderSiteSpace) => string | null | undefined;
  /** Whether a variant has the page (never called for `current`, which has it). */
  has: (ss: ReaderSiteSpace) => boolean;
  /** The absolute URL of the page in a variant. */
  href: (ss: ReaderSiteSpace) => string;
}

/**
 * The alternates of a page of `current`: one per language among the section's variants that have
 * the page (the first such variant of a language stands for it), then `x-default` for the
 * section's default variant when it has the page. Empty when the section has a single variant,
 * when no variant with the page has a language, and when `current` itself is not in the set (a
 * hidden variant, or a second variant of a language another one already stands for): a set the
 * page is not part of would not be reciprocal.
 */
export function hreflangAlternates(
  v: VisibleSite,
  section: ReaderSection | null,
  current: ReaderSiteSpace,
  x: AlternateInputs,
): Alternate[] {
  const variants = alternateVariants(v, section);
  if (variants.length < 2) return [];
  const out: Alternate[] = [];
  const seen = new Set<string>();
  let includesCurrent = false;
  for (const ss of variants) {
    const lang = hreflangOf(x.languageOf(ss));
    if (!lang || seen.has(lang.toLowerCase())) continue;
    if (ss.id !== current.id && !x.has(ss)) continue;
    seen.add(lang.toLowerCase());
    out.push({ hreflang: lang, href: x.href(ss) });
    if (ss.id === current.id) includesCurrent = true;
  }
  if (!out.length) return [];
  const def = defaultVariant(v, section);
  if (def && !def.hidden && (def.id === current.id || x.has(def))) {
    out.push({ hreflang: 'x-default', href: x.href(def) });
    if (def.id === current.id) includesCurrent = true;
  }
  return includesCurrent ? out : [];
}
