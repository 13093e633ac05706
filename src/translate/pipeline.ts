// Translate a set of segments through a provider: memory first, then unique segments in batches
// within the provider's limits and concurrency. Every translation is checked (its placeholders must
// rebuild); a batch whose output is unusable is retried segment by segment, and a segment that
// still comes back wrong is kept in the source language and counted as a warning.
import { createHash } from 'node:crypto';
import pLimit from 'p-limit';
import { batches, ProviderError, type TranslationLanguage, type TranslationProvider } from './provider.js';
import { PlaceholderMismatch, rebuild, segmentWords, type Unit } from './segment.js';

export interface PipelineInput {
  provider: TranslationProvider;
  source: TranslationLanguage;
  target: TranslationLanguage;
  instructions?: string;
  instructionsHash: string;
  glossary?: { source: string; target: string }[];
  /** Translations already known, by memoryKey. */
  memory: (keys: string[]) => Promise<Map<string, string>>;
  onProgress?: (done: number, total: number) => Promise<void> | void;
  signal?: AbortSignal;
}

export interface PipelineResult {
  /** Rebuilt markdown (or attribute text) per unit; null: kept in the source language. */
  rebuilt: (string | null)[];
  /** New memory entries (memoryKey -> provider output). */
  learned: Map<string, string>;
  /** Segments actually sent to the provider. */
  sent: string[];
  /** Source words of the segments sent. */
  words: number;
  warnings: number;
}

export function memoryKey(provider: string, source: string, target: string, instructionsHash: string, segment: string): string {
  return createHash('sha256').update(`${provider}\0${source}\0${target}\0${instructionsHash}\0${segment}`).digest('base64url');
}

/** Word-like segments (Intl.Segmenter: right for languages without spaces too). */
const segmenters = new Map<string, Intl.Segmenter>();

export function countWords(text: string, language: string): number {
  let n = 0;
  let seg = segmenters.get(language);
  if (!seg) segmenters.set(language, (seg = new Intl.Segmenter(language, { granularity: 'word' })));
  for (const s of seg.segment(text)) if (s.isWordLike) n++;
  return n;
}

function checks(units: Unit[], translated: string): boolean {
  try {
    rebuild(units[0], translated);
    return true;
  } catch (err) {
    if (err instanceof PlaceholderMismatch) return false;
    throw err;
  }
}

export async function translateUnits(units: Unit[], input: PipelineInput): Promise<PipelineResult> {
  const { provider } = input;
  const keyOf = (text: string) => memoryKey(provider.id, input.source, input.target, input.instructionsHash, text);
  // Units with the same text share one translation (their placeholders differ only in what they stand for).
  const byText = new Map<string, Unit[]>();
  for (const u of units) byText.set(u.text, [...(byText.get(u.text) ?? []), u]);
  const texts = [...byText.keys()];
  const known = await input.memory(texts.map(keyOf));
  const result = new Map<string, string | null>();
  for (const t of texts) {
    const hit = known.get(keyOf(t));
    if (hit !== undefined && checks(byText.get(t)!, hit)) result.set(t, hit);
  }
  const todo = texts.filter((t) => !result.has(t));
  const learned = new Map<string, string>();
  let warnings = 0;
  let done = 0;
  const call = (segments: string[]) =>
    provider.translate({
      source: input.source,
      target: input.target,
      segments,
      instructions: input.instructions,
      glossary: input.glossary,
      signal: input.signal,
    });
  const accept = (text: string, out: string | undefined): boolean => {
    if (out === undefined || !checks(byText.get(text)!, out)) return false;
    result.set(text, out);
    learned.set(keyOf(text), out);
    return true;
  };
  const limit = pLimit(Math.max(1, provider.limits.concurrency));
  await Promise.all(
    batches(todo, provider.limits).map((idx) =>
      limit(async () => {
        const batch = idx.map((i) => todo[i]);
        let out: string[] | undefined;
        try {
          out = await call(batch);
        } catch (err) {
          if (!(err instanceof ProviderError && err.malformed)) throw err;
        }
        for (let i = 0; i < batch.length; i++) {
          if (accept(batch[i], out?.[i])) continue;
          // One more try alone, then keep the source text.
          let again: string | undefined;
          try {
            again = (await call([batch[i]]))[0];
          } catch (err) {
            if (!(err instanceof ProviderError && err.malformed)) throw err;
          }
          if (!accept(batch[i], again)) {
            result.set(batch[i], null);
            warnings++;
          }
        }
        done += batch.length;
        await input.onProgress?.(done, todo.length);
      }),
    ),
  );
  const words = todo.reduce((n, t) => n + countWords(segmentWords(t), input.source), 0);
  const rebuilt = units.map((u) => {
    const t = result.get(u.text);
    return t === null || t === undefined ? null : rebuild(u, t);
  });
  return { rebuilt, learned, sent: todo, words, warnings };
}
