// Adapters for real translation back-ends, each speaking its own wire API:
// - LibreTranslate (also the shape of Argos Translate and Opus-MT servers): POST /translate with
//   `q` as an array and `format: "html"`, so placeholders are kept as markup.
// - DeepL: POST /v2/translate with `tag_handling: "xml"` and `ignore_tags: ["x"]`; the
//   instructions travel as `context` (not translated, not billed).
// - Any OpenAI-compatible chat endpoint (OpenAI, vLLM, llama.cpp, Ollama's /v1): POST
//   /v1/chat/completions asking for `{"segments": [...]}` with the same count; the only one that
//   follows the instructions and the glossary.
import { postJson, type HttpSettings } from './http.js';
import { ProviderError, type TranslationLanguage, type TranslationProvider, type TranslateRequest } from './provider.js';

export interface AdapterSettings extends HttpSettings {
  url: string;
  apiKey?: string;
  model?: string;
  concurrency: number;
}

const join = (base: string, path: string) => base.replace(/\/+$/, '') + path;

function sameCount(name: string, out: unknown, n: number): string[] {
  if (!Array.isArray(out) || out.length !== n || !out.every((s) => typeof s === 'string')) {
    throw new ProviderError(`${name} answered ${Array.isArray(out) ? out.length : 'no'} segments for ${n}`, false, true);
  }
  return out as string[];
}

// ---- LibreTranslate -------------------------------------------------------------------------------

const LIBRE_CODES: Partial<Record<TranslationLanguage, string>> = { 'pt-br': 'pb', 'zh-tw': 'zt', yue: 'zt', zh: 'zh-Hans', no: 'nb' };
export const libreCode = (l: TranslationLanguage) => LIBRE_CODES[l] ?? l;

export function libreTranslateProvider(s: AdapterSettings): TranslationProvider {
  return {
    id: 'libretranslate',
    limits: { maxSegments: 50, maxChars: 5000, concurrency: s.concurrency },
    supports: () => true,
    async translate(req: TranslateRequest) {
      const out = (await postJson(
        'LibreTranslate',
        join(s.url, '/translate'),
        {
          q: req.segments,
          source: libreCode(req.source),
          target: libreCode(req.target),
          format: 'html',
          ...(s.apiKey ? { api_key: s.apiKey } : {}),
        },
        {},
        s,
        req.signal,
      )) as { translatedText?: unknown };
      return sameCount('LibreTranslate', out?.translatedText, req.segments.length);
    },
  };
}

// ---- DeepL ----------------------------------------------------------------------------------------

const DEEPL_LANGS = new Set([
  'ar', 'bg', 'cs', 'da', 'de', 'el', 'en', 'es', 'et', 'fi', 'fr', 'he', 'hu', 'id', 'it', 'ja', 'ko', 'lt', 'lv',
  'no', 'nl', 'pl', 'pt', 'pt-br', 'ro', 'ru', 'sk', 'sl', 'sv', 'th', 'tr', 'uk', 'vi', 'zh', 'zh-tw',
]); // prettier-ignore
const DEEPL_TARGET: Partial<Record<TranslationLanguage, string>> = {
  en: 'EN-US',
  pt: 'PT-PT',
  'pt-br': 'PT-BR',
  zh: 'ZH-HANS',
  'zh-tw': 'ZH-HANT',
  no: 'NB',
};
const DEEPL_SOURCE: Partial<Record<TranslationLanguage, string>> = { 'pt-br': 'PT', 'zh-tw': 'ZH', no: 'NB' };
export const deeplTarget = (l: TranslationLanguage) => DEEPL_TARGET[l] ?? l.toUpperCase();
export const deeplSource = (l: TranslationLanguage) => DEEPL_SOURCE[l] ?? l.toUpperCase();

export function deeplProvider(s: AdapterSettings): TranslationProvider {
  return {
    id: 'deepl',
    limits: { maxSegments: 50, maxChars: 100_000, concurrency: s.concurrency },
    supports: (source, target) => DEEPL_LANGS.has(source) && DEEPL_LANGS.has(target),
    async translate(req: TranslateRequest) {
      const out = (await postJson(
        'DeepL',
        join(s.url, '/v2/translate'),
        {
          text: req.segments,
          source_lang: deeplSource(req.source),
          target_lang: deeplTarget(req.target),
          tag_handling: 'xml',
          ignore_tags: ['x'],
          ...(req.instructions ? { context: req.instructions } : {}),
        },
        s.apiKey ? { authorization: `DeepL-Auth-Key ${s.apiKey}` } : {},
        s,
        req.signal,
      )) as { translations?: { text?: unknown }[] };
      const list = Array.isArray(out?.translations) ? out.translations.map((t) => t?.text) : undefined;
      return sameCount('DeepL', list, req.segments.length);
    },
  };
}

// ---- OpenAI-compatible chat -----------------------------------------------------------------------

const NAMES: Record<TranslationLanguage, string> = {
  en: 'English', fr: 'French', de: 'German', es: 'Spanish', it: 'Italian', pt: 'European Portuguese', 'pt-br': 'Brazilian Portuguese',
  ru: 'Russian', ja: 'Japanese', zh: 'Simplified Chinese', 'zh-tw': 'Traditional Chinese', yue: 'Cantonese', ko: 'Korean', ar: 'Arabic',
  hi: 'Hindi', nl: 'Dutch', pl: 'Polish', tr: 'Turkish', sv: 'Swedish', no: 'Norwegian Bokmål', da: 'Danish', fi: 'Finnish', el: 'Greek',
  cs: 'Czech', hu: 'Hungarian', ro: 'Romanian', th: 'Thai', vi: 'Vietnamese', id: 'Indonesian', ms: 'Malay', he: 'Hebrew', uk: 'Ukrainian',
  sk: 'Slovak', bg: 'Bulgarian', hr: 'Croatian', lt: 'Lithuanian', lv: 'Latvian', et: 'Estonian', sl: 'Slovenian',
}; // prettier-ignore
export const languageName = (l: TranslationLanguage) => NAMES[l];

export function chatMessages(req: TranslateRequest): { role: string; content: string }[] {
  const lines = [
    `You translate documentation from ${NAMES[req.source]} to ${NAMES[req.target]}.`,
    'The user sends JSON {"segments": [...]}. Answer only JSON {"segments": [...]} with exactly one translation per segment, in the same order.',
    'Keep every tag such as <x id="1"/> and <g id="2">...</g> exactly as written (you may move them to fit the grammar) and keep XML entities such as &amp; and &lt;.',
    'Do not translate product names, code, URLs or anything inside <x/> tags.',
  ];
  if (req.glossary?.length)
    lines.push('Glossary (always use these translations):', ...req.glossary.map((g) => `- ${g.source} => ${g.target}`));
  if (req.instructions) lines.push('Style instructions from the documentation owner:', req.instructions);
  return [
    { role: 'system', content: lines.join('\n') },
    { role: 'user', content: JSON.stringify({ segments: req.segments }) },
  ];
}

export function openAiProvider(s: AdapterSettings): TranslationProvider {
  return {
    id: 'openai',
    limits: { maxSegments: 40, maxChars: 8000, concurrency: s.concurrency },
    supports: () => true,
    async translate(req: TranslateRequest) {
      const out = (await postJson(
        'The chat endpoint',
        join(s.url, '/v1/chat/completions'),
        { model: s.model ?? 'gpt-4o-mini', temperature: 0, response_format: { type: 'json_object' }, messages: chatMessages(req) },
        s.apiKey ? { authorization: `Bearer ${s.apiKey}` } : {},
        s,
        req.signal,
      )) as { choices?: { message?: { content?: unknown } }[] };
      const content = out?.choices?.[0]?.message?.content;
      let segments: unknown;
      try {
        segments = typeof content === 'string' ? (JSON.parse(content) as { segments?: unknown }).segments : undefined;
      } catch {
        segments = undefined;
      }
      return sameCount('The chat endpoint', segments, req.segments.length);
    },
  };
}
