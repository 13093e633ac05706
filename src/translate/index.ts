// The translation engine: segmenting page markdown, providers, and the pipeline between them.
import { deeplProvider, libreTranslateProvider, openAiProvider } from './adapters.js';
import type { TranslationProvider } from './provider.js';
import { pseudoProvider } from './pseudo.js';

export interface ProviderSettings {
  provider: 'pseudo' | 'libretranslate' | 'deepl' | 'openai';
  url?: string;
  apiKey?: string;
  model?: string;
  concurrency: number;
  timeoutMs: number;
  retries: number;
  backoffMs: number;
  allowPrivate: boolean;
}

/** The configured provider. The key stays inside the adapter (request headers or body), never in errors. */
export function createProvider(s: ProviderSettings): TranslationProvider {
  if (s.provider === 'pseudo') return pseudoProvider();
  const adapter = {
    url: s.url ?? '',
    apiKey: s.apiKey,
    model: s.model,
    concurrency: s.concurrency,
    timeoutMs: s.timeoutMs,
    retries: s.retries,
    backoffMs: s.backoffMs,
    maxRetryAfterMs: 60_000,
    allowPrivate: s.allowPrivate,
    maxBytes: 20 * 1024 * 1024,
  };
  if (s.provider === 'libretranslate') return libreTranslateProvider(adapter);
  if (s.provider === 'deepl') return deeplProvider(adapter);
  return openAiProvider(adapter);
}

export { ProviderError, TRANSLATION_LANGUAGES, type TranslationLanguage, type TranslationProvider } from './provider.js';
export { segmentMarkdown, plainUnit, applyTranslations, hasProse, type Unit } from './segment.js';
export { translateUnits, countWords, type PipelineResult } from './pipeline.js';
