// Each adapter against a loopback server speaking its real wire API: request shape, language code
// mapping, batching within limits, retries on 429/503 honouring Retry-After, auth failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvider, ProviderError, type TranslationProvider } from '../../../src/translate/index.js';
import { translateUnits } from '../../../src/translate/pipeline.js';
import { segmentMarkdown } from '../../../src/translate/segment.js';
import { pseudoLocalize } from '../../../src/translate/pseudo.js';
import { startFakeProvider, type FakeKind, type FakeProvider } from '../../helpers/translation-servers.js';

const KEY = 'sk-test-secret-key';
const fakes = {} as Record<FakeKind, FakeProvider>;

beforeAll(async () => {
  for (const kind of ['libretranslate', 'deepl', 'openai'] as const) fakes[kind] = await startFakeProvider(kind, KEY);
});
afterAll(async () => {
  for (const f of Object.values(fakes)) await f.close();
});

function provider(kind: FakeKind, over: { apiKey?: string; retries?: number } = {}): TranslationProvider {
  return createProvider({
    provider: kind,
    url: fakes[kind].url,
    apiKey: over.apiKey ?? KEY,
    model: 'test-model',
    concurrency: 2,
    timeoutMs: 5000,
    retries: over.retries ?? 3,
    backoffMs: 10,
    allowPrivate: true,
  });
}

const req = (segments: string[], target: 'pt-br' | 'zh-tw' | 'no' | 'fr' = 'fr') => ({
  source: 'en' as const,
  target,
  segments,
  instructions: 'Use the informal register.',
  glossary: [{ source: 'space', target: 'espace' }],
});

describe.each(['libretranslate', 'deepl', 'openai'] as const)('%s adapter', (kind) => {
  it('sends segments in the wire format, keeps placeholders and returns them in order', async () => {
    const f = fakes[kind];
    f.requests.length = 0;
    const out = await provider(kind).translate(req(['Hello <g id="1">world</g>', 'Use <x id="1"/> now'], 'pt-br'));
    expect(out).toEqual([pseudoLocalize('Hello <g id="1">world</g>'), pseudoLocalize('Use <x id="1"/> now')]);
    expect(f.requests).toHaveLength(1);
    const r = f.requests[0];
    if (kind === 'libretranslate') {
      expect(r.body).toMatchObject({
        q: ['Hello <g id="1">world</g>', 'Use <x id="1"/> now'],
        source: 'en',
        target: 'pb',
        format: 'html',
        api_key: KEY,
      });
    } else if (kind === 'deepl') {
      expect(r.headers.authorization).toBe(`DeepL-Auth-Key ${KEY}`);
      expect(r.body).toMatchObject({
        source_lang: 'EN',
        target_lang: 'PT-BR',
        tag_handling: 'xml',
        ignore_tags: ['x'],
        context: 'Use the informal register.',
      });
    } else {
      expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(r.body.model).toBe('test-model');
      const system = r.body.messages[0].content as string;
      expect(system).toContain('Brazilian Portuguese');
      expect(system).toContain('Use the informal register.');
      expect(system).toContain('space => espace');
    }
  });

  it('maps language codes', async () => {
    const f = fakes[kind];
    f.requests.length = 0;
    await provider(kind).translate(req(['One'], 'zh-tw'));
    await provider(kind).translate(req(['Two'], 'no'));
    const targets = f.requests.map((r) =>
      kind === 'libretranslate' ? r.body.target : kind === 'deepl' ? r.body.target_lang : r.body.messages[0].content.split('\n')[0],
    );
    if (kind === 'libretranslate') expect(targets).toEqual(['zt', 'nb']);
    else if (kind === 'deepl') expect(targets).toEqual(['ZH-HANT', 'NB']);
    else
      expect(targets).toEqual([
        'You translate documentation from English to Traditional Chinese.',
        'You translate documentation from English to Norwegian Bokmål.',
      ]);
  });

  it('retries 429 and 503, waiting what Retry-After asks', async () => {
    const f = fakes[kind];
    f.requests.length = 0;
    f.failNext(2, 429, '0');
    expect(await provider(kind).translate(req(['Again']))).toHaveLength(1);
    expect(f.requests).toHaveLength(3);
    f.requests.length = 0;
    f.failNext(1, 503);
    expect(await provider(kind).translate(req(['Later']))).toHaveLength(1);
    expect(f.requests).toHaveLength(2);
  });

  it('gives up after its retries with a retryable error', async () => {
    const f = fakes[kind];
    f.requests.length = 0;
    f.failNext(10, 503, '0');
    const err = await provider(kind, { retries: 2 })
      .translate(req(['Never']))
      .catch((e) => e);
    f.failNext(0, 0);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.permanent).toBe(false);
    expect(f.requests).toHaveLength(3);
  });

  it('fails at once on a bad key, without the key in the message', async () => {
    const f = fakes[kind];
    f.requests.length = 0;
    const err = await provider(kind, { apiKey: 'wrong-key' })
      .translate(req(['Hi']))
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.permanent).toBe(true);
    expect(err.message).not.toContain('wrong-key');
    expect(f.requests).toHaveLength(1);
  });

  it('batches within the provider limits through the pipeline, and retries malformed output segment by segment', async () => {
    const f = fakes[kind];
    const p = provider(kind);
    const md = Array.from({ length: 120 }, (_, i) => `Paragraph number ${i} with *some* words.`).join('\n\n');
    const units = segmentMarkdown(md);
    f.requests.length = 0;
    const before = f.segments().length;
    f.malformNext(1);
    const r = await translateUnits(units, {
      provider: p,
      source: 'en',
      target: 'fr',
      instructionsHash: 'h',
      memory: async () => new Map(),
    });
    expect(r.warnings).toBe(0);
    expect(r.rebuilt.every((x) => x && x.startsWith('⟦'))).toBe(true);
    const sizes = f.requests.map(
      (q) =>
        (kind === 'libretranslate' ? q.body.q : kind === 'deepl' ? q.body.text : JSON.parse(q.body.messages[1].content).segments).length,
    );
    expect(Math.max(...sizes)).toBeLessThanOrEqual(p.limits.maxSegments);
    // The malformed batch was asked again one segment at a time.
    expect(sizes.filter((s) => s === 1).length).toBeGreaterThanOrEqual(1);
    expect(new Set(f.segments().slice(before)).size).toBe(120);
  });
});
