import type { AppContext } from '../context.js';
import { builtInTextConfigs, canonicalTextConfig } from '../db/repos/search-query.js';

// Which PostgreSQL text-search configuration (stemmer and stop words) indexes and queries a space.
//
// A space whose `language` has a built-in PostgreSQL configuration uses it (fr → french, so
// "chevaux" finds "cheval"); every other space uses SEARCH_TEXT_CONFIG (default english). A
// configuration that does not exist in the database falls back to `simple` with a warning, so a
// typo never breaks indexing. The configuration an index was built with is stored with it; a
// change (SEARCH_TEXT_CONFIG, or the space's language) is noticed at the next search and the
// space is reindexed then.

const LANGUAGE_CONFIGS: Record<string, string> = {
  en: 'english',
  fr: 'french',
  de: 'german',
  es: 'spanish',
  it: 'italian',
  pt: 'portuguese',
  'pt-br': 'portuguese',
  ru: 'russian',
  nl: 'dutch',
  sv: 'swedish',
  no: 'norwegian',
  da: 'danish',
  fi: 'finnish',
  el: 'greek',
  hu: 'hungarian',
  ro: 'romanian',
  tr: 'turkish',
  ar: 'arabic',
  hi: 'hindi',
  id: 'indonesian',
  lt: 'lithuanian',
};

interface Resolved {
  fallback: string;
  builtIn: Set<string>;
}

const resolved = new WeakMap<AppContext, Promise<Resolved>>();

async function resolve(app: AppContext): Promise<Resolved> {
  const wanted = app.config.searchTextConfig;
  let fallback = 'simple';
  try {
    fallback = await canonicalTextConfig(app.db, wanted);
  } catch (err) {
    if ((err as { code?: string }).code !== '42704') throw err; // 42704: undefined_object
    app.log.warn({ searchTextConfig: wanted }, 'SEARCH_TEXT_CONFIG names no text search configuration; using "simple"');
  }
  return { fallback, builtIn: new Set(await builtInTextConfigs(app.db)) };
}

function load(app: AppContext): Promise<Resolved> {
  let p = resolved.get(app);
  if (!p) {
    p = resolve(app);
    resolved.set(app, p);
    p.catch(() => resolved.delete(app)); // a failed look-up (database down) is retried next time
  }
  return p;
}

/** The text-search configuration for a space of this language (null: none set). */
export async function spaceTextConfig(app: AppContext, language: string | null): Promise<string> {
  const r = await load(app);
  const byLanguage = language ? LANGUAGE_CONFIGS[language] : undefined;
  return byLanguage && r.builtIn.has(byLanguage) ? byLanguage : r.fallback;
}
