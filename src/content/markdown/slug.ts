/** Letters NFKD does not decompose into an ASCII base. */
const FOLD: Record<string, string> = {
  ß: 'ss',
  ẞ: 'ss',
  æ: 'ae',
  Æ: 'ae',
  œ: 'oe',
  Œ: 'oe',
  ø: 'o',
  Ø: 'o',
  đ: 'd',
  Đ: 'd',
  ð: 'd',
  Ð: 'd',
  þ: 'th',
  Þ: 'th',
  ł: 'l',
  Ł: 'l',
  ı: 'i',
  ħ: 'h',
  Ħ: 'h',
  ŋ: 'n',
  Ŋ: 'n',
};
const FOLD_RE = new RegExp(`[${Object.keys(FOLD).join('')}]`, 'g');
/** Word separators become hyphens; every other character outside the allowed set is dropped. */
const SEPARATORS = /[\s\-_/\\|.,:;]+/gu;
const MAX = 100;

function finish(slug: string): string {
  const trimmed = slug.replace(/-+/g, '-').replace(/^-|-$/g, '');
  return Array.from(trimmed).slice(0, MAX).join('').replace(/-$/, '');
}

/**
 * Page slug from a title: lowercase ASCII letters, digits and single hyphens, at most 100 characters.
 * Accents are folded (`Café` → `cafe`, `Straße` → `strasse`), whitespace and separators (`-_/\|.,:;`)
 * become hyphens, anything else is dropped (`What's new?` → `whats-new`).
 *
 * A title with nothing ASCII to keep (CJK, Cyrillic, Arabic…) keeps its Unicode letters, marks and
 * digits instead, lowercased and NFC-normalised (`安装指南` → `安装指南`, `Привет мир` → `привет-мир`),
 * so such pages still get distinct, stable slugs (percent-encoded in URLs). A title with no letters
 * or digits at all (`!!!`, emoji, '') gives `page`.
 */
export function slugify(title: string): string {
  const ascii = finish(
    title
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .replace(FOLD_RE, (c) => FOLD[c])
      .toLowerCase()
      .replace(SEPARATORS, '-')
      .replace(/[^a-z0-9-]/g, ''),
  );
  if (ascii) return ascii;
  const unicode = finish(
    title
      .normalize('NFC')
      .toLowerCase()
      .replace(SEPARATORS, '-')
      .replace(/[^\p{L}\p{M}\p{N}-]/gu, ''),
  );
  return unicode || 'page';
}
