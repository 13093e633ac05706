// What a translation back-end is to the pipeline: a batch of segments in, the same number out, in
// order. Segments are text with `<x id="n"/>` and `<g id="n">…</g>` placeholders (segment.ts) that
// a provider must give back unchanged.

/** Languages of the public description (`TranslationLanguage`). */
export const TRANSLATION_LANGUAGES = [
  'en', 'fr', 'de', 'es', 'it', 'pt', 'pt-br', 'ru', 'ja', 'zh', 'zh-tw', 'yue', 'ko', 'ar', 'hi', 'nl', 'pl', 'tr', 'sv', 'no',
  'da', 'fi', 'el', 'cs', 'hu', 'ro', 'th', 'vi', 'id', 'ms', 'he', 'uk', 'sk', 'bg', 'hr', 'lt', 'lv', 'et', 'sl',
] as const; // prettier-ignore
export type TranslationLanguage = (typeof TRANSLATION_LANGUAGES)[number];

export interface TranslateRequest {
  source: TranslationLanguage;
  target: TranslationLanguage;
  segments: string[];
  /** Plain text of the translation's `instructions` document (a style guide). */
  instructions?: string;
  glossary?: { source: string; target: string }[];
  signal?: AbortSignal;
}

export interface ProviderLimits {
  /** Most segments in one request. */
  maxSegments: number;
  /** Most characters (sum of segments) in one request. */
  maxChars: number;
  /** Requests in flight at once. */
  concurrency: number;
}

export interface TranslationProvider {
  readonly id: 'pseudo' | 'libretranslate' | 'deepl' | 'openai';
  readonly limits: ProviderLimits;
  supports(source: TranslationLanguage, target: TranslationLanguage): boolean;
  /** Same length and order as `segments`, or throws ProviderError. */
  translate(req: TranslateRequest): Promise<string[]>;
}

/**
 * A provider call that failed. `permanent`: retrying cannot help (bad key, unsupported language,
 * rejected request); otherwise the call was retried and gave up. `malformed`: the provider answered
 * but its output cannot be used (wrong count), so the pipeline may try smaller batches.
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    readonly malformed = false,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** Split segments into batches within a provider's limits (a segment longer than maxChars goes alone). */
export function batches(segments: string[], limits: Pick<ProviderLimits, 'maxSegments' | 'maxChars'>): number[][] {
  const out: number[][] = [];
  let cur: number[] = [];
  let chars = 0;
  segments.forEach((s, i) => {
    if (cur.length && (cur.length >= limits.maxSegments || chars + s.length > limits.maxChars)) {
      out.push(cur);
      cur = [];
      chars = 0;
    }
    cur.push(i);
    chars += s.length;
  });
  if (cur.length) out.push(cur);
  return out;
}
