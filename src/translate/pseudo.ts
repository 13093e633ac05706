// Pseudo-localisation: a deterministic, offline "translation" that accents every Latin letter,
// brackets each segment and lengthens it by about a third. It is not a translator: it lets a
// newcomer try the whole feature (and CI check the pipeline) without a translation engine, and it
// makes untranslated text stand out. Placeholders and XML entities are left untouched.
import type { TranslationProvider, TranslateRequest } from './provider.js';

const ACCENTS: Record<string, string> = {
  a: 'á', b: 'ƀ', c: 'ç', d: 'ď', e: 'é', f: 'ƒ', g: 'ĝ', h: 'ĥ', i: 'í', j: 'ĵ', k: 'ķ', l: 'ļ', m: 'ɱ',
  n: 'ñ', o: 'ö', p: 'þ', q: 'ǫ', r: 'ŕ', s: 'š', t: 'ţ', u: 'ü', v: 'ṽ', w: 'ŵ', x: 'ẋ', y: 'ý', z: 'ž',
  A: 'Á', B: 'Ɓ', C: 'Ç', D: 'Ď', E: 'É', F: 'Ƒ', G: 'Ĝ', H: 'Ĥ', I: 'Í', J: 'Ĵ', K: 'Ķ', L: 'Ļ', M: 'Ṁ',
  N: 'Ñ', O: 'Ö', P: 'Þ', Q: 'Ǫ', R: 'Ŕ', S: 'Š', T: 'Ţ', U: 'Ü', V: 'Ṽ', W: 'Ŵ', X: 'Ẋ', Y: 'Ý', Z: 'Ž',
}; // prettier-ignore

/** Accent the text outside tags and entities. */
export function pseudoLocalize(segment: string): string {
  let letters = 0;
  const body = segment.replace(/(<[^>]*>|&[#\w]+;)|([A-Za-z])/g, (all, keep: string | undefined, ch: string | undefined) => {
    if (keep) return keep;
    letters++;
    return ACCENTS[ch!] ?? all;
  });
  return `⟦${body}${letters > 3 ? ' ' + '·'.repeat(Math.ceil(letters / 3)) : ''}⟧`;
}

export function pseudoProvider(): TranslationProvider {
  return {
    id: 'pseudo',
    limits: { maxSegments: 100, maxChars: 50_000, concurrency: 1 },
    supports: () => true,
    async translate(req: TranslateRequest) {
      return req.segments.map(pseudoLocalize);
    },
  };
}
