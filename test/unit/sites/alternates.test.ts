// The pure hreflang rule (src/sites/alternates.ts): which variants a page names, and when none.
import { describe, expect, it } from 'vitest';
import { hreflangAlternates, hreflangOf, MAX_ALTERNATE_VARIANTS } from '../../../src/sites/alternates.js';
import { readerContext, visibleSite, type ReaderSection, type ReaderSiteSpace } from '../../../src/sites/reader.js';

const docs: ReaderSection = { id: 'docs', path: 'docs', title: 'Docs', condition: null, is_default: true, group_id: null };
const variant = (id: string, extra: Partial<ReaderSiteSpace> = {}): ReaderSiteSpace => ({
  id,
  section_id: 'docs',
  space_id: id,
  path: id,
  title: id,
  condition: null,
  hidden: false,
  is_default: false,
  ...extra,
});

function alternatesOf(
  variants: ReaderSiteSpace[],
  languages: Record<string, string | null>,
  pages: Record<string, boolean>,
  current: string,
) {
  const v = visibleSite([docs], variants, readerContext({}, {}));
  const ss = variants.find((x) => x.id === current)!;
  return hreflangAlternates(v, docs, ss, {
    languageOf: (x) => languages[x.id],
    has: (x) => {
      expect(x.id).not.toBe(current);
      return pages[x.id] ?? false;
    },
    href: (x) => `https://docs.test/${x.path}/page`,
  });
}

describe('hreflangOf', () => {
  it('writes language codes as hreflang does and refuses what is not one', () => {
    expect(hreflangOf('fr')).toBe('fr');
    expect(hreflangOf('pt-br')).toBe('pt-BR');
    expect(hreflangOf('zh-hant')).toBe('zh-Hant');
    expect(hreflangOf('yue')).toBe('yue');
    for (const bad of [null, undefined, '', 'f', 'fr_FR', 'fr"><script>', 'x'.repeat(40)]) expect(hreflangOf(bad)).toBeNull();
  });
});

describe('hreflangAlternates', () => {
  const variants = [variant('en', { is_default: true }), variant('fr'), variant('de')];
  const languages = { en: 'en', fr: 'fr', de: 'de' };

  it('names each language variant having the page, itself included, then x-default', () => {
    expect(alternatesOf(variants, languages, { en: true, fr: true, de: false }, 'fr')).toEqual([
      { hreflang: 'en', href: 'https://docs.test/en/page' },
      { hreflang: 'fr', href: 'https://docs.test/fr/page' },
      { hreflang: 'x-default', href: 'https://docs.test/en/page' },
    ]);
    // The default variant without the page: no x-default.
    expect(alternatesOf(variants, languages, { en: false, de: true }, 'fr').map((a) => a.hreflang)).toEqual(['fr', 'de']);
  });

  it('names no hidden variant, and a page of one names nothing', () => {
    const withHidden = [...variants, variant('es', { hidden: true })];
    const langs = { ...languages, es: 'es' };
    expect(alternatesOf(withHidden, langs, { en: true, fr: true, de: true, es: true }, 'en').map((a) => a.hreflang)).toEqual([
      'en',
      'fr',
      'de',
      'x-default',
    ]);
    expect(alternatesOf(withHidden, langs, { en: true, fr: true, de: true }, 'es')).toEqual([]);
  });

  it('has none for a single variant or a section without languages; the first variant of a language stands for it', () => {
    expect(alternatesOf([variant('en', { is_default: true })], { en: 'en' }, {}, 'en')).toEqual([]);
    expect(alternatesOf(variants, { en: null, fr: null, de: null }, { en: true, fr: true, de: true }, 'fr')).toEqual([]);
    // Two English versions: v1 stands for English; a page of v2 is not in the set, so it names none.
    const versions = [variant('v1', { is_default: true }), variant('v2'), variant('fr')];
    const langs = { v1: 'en', v2: 'en', fr: 'fr' };
    expect(alternatesOf(versions, langs, { v2: true, fr: true }, 'v1').map((a) => a.hreflang)).toEqual(['en', 'fr', 'x-default']);
    expect(alternatesOf(versions, langs, { v1: true, fr: true }, 'v2')).toEqual([]);
    // A default variant without a language is the x-default of the others.
    expect(alternatesOf(variants, { en: null, fr: 'fr', de: 'de' }, { fr: true, de: true }, 'en')).toEqual([
      { hreflang: 'fr', href: 'https://docs.test/fr/page' },
      { hreflang: 'de', href: 'https://docs.test/de/page' },
      { hreflang: 'x-default', href: 'https://docs.test/en/page' },
    ]);
  });

  it('looks at a bounded number of variants', () => {
    const many = Array.from({ length: MAX_ALTERNATE_VARIANTS + 20 }, (_, i) => variant(`v${i}`, { is_default: i === 0 }));
    const langs = Object.fromEntries(
      many.map((x, i) => [x.id, `l${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`]),
    );
    const all = Object.fromEntries(many.map((x) => [x.id, true]));
    expect(alternatesOf(many, langs, all, 'v0').length).toBe(MAX_ALTERNATE_VARIANTS + 1);
  });
});
