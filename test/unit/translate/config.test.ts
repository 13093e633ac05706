import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';

describe('translation configuration', () => {
  it('defaults to the offline pseudo provider', () => {
    expect(loadConfig({}).translation).toMatchObject({ provider: 'pseudo', concurrency: 2, retries: 4, allowPrivate: false });
  });
  it('reads a real provider with its URL, key and model', () => {
    const c = loadConfig({
      TRANSLATION_PROVIDER: 'deepl',
      TRANSLATION_URL: 'https://api-free.deepl.com',
      TRANSLATION_API_KEY: 'k',
      TRANSLATION_CONCURRENCY: '4',
    });
    expect(c.translation).toMatchObject({ provider: 'deepl', url: 'https://api-free.deepl.com', apiKey: 'k', concurrency: 4 });
  });
  it('refuses an unknown provider, or a real one without a URL', () => {
    expect(() => loadConfig({ TRANSLATION_PROVIDER: 'babelfish' })).toThrow(/TRANSLATION_PROVIDER/);
    expect(() => loadConfig({ TRANSLATION_PROVIDER: 'openai' })).toThrow(/TRANSLATION_URL/);
  });
});
