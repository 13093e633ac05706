import { describe, expect, it } from 'vitest';
import { applyTranslations, PlaceholderMismatch, rebuild, segmentMarkdown } from '../../../src/translate/segment.js';
import { pseudoLocalize } from '../../../src/translate/pseudo.js';
import { batches } from '../../../src/translate/provider.js';
import { retryAfterMs } from '../../../src/translate/http.js';
import { countWords } from '../../../src/translate/pipeline.js';

const PAGE = [
  '# Getting started',
  '',
  'Install the **command line** tool with `npm install dp` and read [the guide](../guide/intro.md "Guide title").',
  '',
  '```js',
  'const greeting = "Hello world"; // not prose',
  '```',
  '',
  '{% hint style="info" %}',
  'Hints are translated too, with {{ space.vars.product }} kept.',
  '{% endhint %}',
  '',
  '{% tabs %}',
  '{% tab title="First tab" %}',
  'Tab body text.',
  '{% endtab %}',
  '{% endtabs %}',
  '',
  '| Name | Meaning |',
  '| ---- | ------- |',
  '| `id` | The unique identifier |',
  '',
  '- A list item with an ![diagram of the flow](https://img.example/flow.png) inside',
  '- Visit <https://example.com/docs> or https://example.org/raw',
  '',
  '> Quoted *emphasis* here',
  '',
  '<div class="raw">HTML block stays</div>',
  '',
  '$$',
  'E = mc^2',
  '$$',
  '',
  '[ref]: https://example.com/reference',
  '',
].join('\n');

const translateAll = (md: string) => {
  const units = segmentMarkdown(md);
  return {
    units,
    out: applyTranslations(
      md,
      units,
      units.map((u) => rebuild(u, pseudoLocalize(u.text))),
    ),
  };
};

describe('segmentMarkdown', () => {
  it('sends only prose, with placeholders for code, links and expressions', () => {
    const texts = segmentMarkdown(PAGE).map((u) => u.text);
    expect(texts).toContain('Getting started');
    expect(texts).toContain('Install the <g id="1">command line</g> tool with <x id="2"/> and read <g id="3">the guide</g>.');
    expect(texts).toContain('Hints are translated too, with <x id="1"/> kept.');
    expect(texts).toContain('First tab');
    expect(texts).toContain('Tab body text.');
    expect(texts).toContain('The unique identifier');
    expect(texts).toContain('A list item with an <g id="1">diagram of the flow</g> inside');
    const all = texts.join('\n');
    for (const never of ['npm install', 'Hello world', 'hint style', 'endhint', 'HTML block', 'mc^2', 'example.com', 'flow.png', 'tabs']) {
      expect(all).not.toContain(never);
    }
  });

  it('puts translations back leaving everything else byte-identical', () => {
    const { out } = translateAll(PAGE);
    for (const kept of [
      '```js\nconst greeting = "Hello world"; // not prose\n```',
      '{% hint style="info" %}',
      '{% endhint %}',
      '{% tabs %}',
      '`npm install dp`',
      '(../guide/intro.md "Guide title")',
      '{{ space.vars.product }}',
      '<div class="raw">HTML block stays</div>',
      '$$\nE = mc^2\n$$',
      '[ref]: https://example.com/reference',
      '<https://example.com/docs>',
      'https://example.org/raw',
      '(https://img.example/flow.png)',
      '| `id` |',
    ]) {
      expect(out).toContain(kept);
    }
    for (const word of ['Getting', 'Install', 'command', 'Hints', 'First', 'Tab', 'unique', 'diagram', 'Quoted', 'emphasis']) {
      expect(out).not.toMatch(new RegExp(`\\b${word}\\b`));
    }
    expect(out).toContain('{% tab title="⟦Ƒíŕšţ ţáƀ ···⟧" %}');
    expect(out).toMatch(/\*\*ç/); // strong markers kept around the translated words
  });

  it('is stable: the same paragraph gives the same segment', () => {
    const a = segmentMarkdown('Use `a` here.\n\nUse `b` here.\n');
    expect(a[0].text).toBe(a[1].text);
    expect(
      applyTranslations(
        'Use `a` here.\n\nUse `b` here.\n',
        a,
        a.map((u) => rebuild(u, 'Nutze <x id="1"/> hier.')),
      ),
    ).toBe('Nutze `a` hier.\n\nNutze `b` hier.\n');
  });

  it('escapes markdown syntax a translation brings', () => {
    const [u] = segmentMarkdown('Plain text.\n');
    expect(rebuild(u, '*not* [a link](x) &lt;b&gt; &amp;')).toBe('\\*not\\* \\[a link\\](x) \\<b\\> \\&');
  });
});

describe('rebuild checks placeholders', () => {
  const [u] = segmentMarkdown('Read **the** `docs` now.\n');
  it('accepts moved placeholders and tag spelling variants', () => {
    expect(u.text).toBe('Read <g id="1">the</g> <x id="2"/> now.');
    expect(rebuild(u, '<x id="2" /> jetzt <g id=\'1\'>die</g> lesen.')).toBe('`docs` jetzt **die** lesen.');
  });
  it.each([
    ['missing', 'Read the docs now.'],
    ['repeated', 'Read <g id="1">the</g> <x id="2"/> <x id="2"/>.'],
    ['unknown', 'Read <g id="1">the</g> <x id="9"/>.'],
    ['unbalanced', 'Read <g id="1">the <x id="2"/> now.'],
    ['crossed', 'Read </g><g id="1">the <x id="2"/>.'],
  ])('refuses %s placeholders', (_name, bad) => {
    expect(() => rebuild(u, bad)).toThrow(PlaceholderMismatch);
  });
});

describe('helpers', () => {
  it('batches within segment and character limits', () => {
    expect(batches(['aaaa', 'bb', 'cc', 'dddddd', 'e'], { maxSegments: 2, maxChars: 6 })).toEqual([[0, 1], [2], [3], [4]]);
  });
  it('reads Retry-After in seconds or as a date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
  it('counts words in languages without spaces', () => {
    expect(countWords('Hello, brave new world!', 'en')).toBe(4);
    expect(countWords('これはテストです', 'ja')).toBeGreaterThan(1);
  });
  it('pseudo-localises letters only', () => {
    expect(pseudoLocalize('Hi <x id="1"/> &amp; 42')).toBe('⟦Ĥí <x id="1"/> &amp; 42⟧');
  });
});

describe('pipeline', () => {
  it('retries a segment whose placeholders come back wrong, then keeps the source and counts a warning', async () => {
    const { translateUnits } = await import('../../../src/translate/pipeline.js');
    const units = segmentMarkdown('Keep `this` code.\n\nPlain words here.\n');
    const calls: string[][] = [];
    const breaking = {
      id: 'pseudo' as const,
      limits: { maxSegments: 10, maxChars: 10_000, concurrency: 1 },
      supports: () => true,
      translate: async (r: { segments: string[] }) => {
        calls.push(r.segments);
        return r.segments.map((s) => pseudoLocalize(s.replace(/<x id="1"\/>/, '')));
      },
    };
    const out = await translateUnits(units, {
      provider: breaking,
      source: 'en',
      target: 'fr',
      instructionsHash: '',
      memory: async () => new Map(),
    });
    expect(out.warnings).toBe(1);
    expect(out.rebuilt[0]).toBeNull();
    expect(out.rebuilt[1]).toMatch(/^⟦Þļáíñ/);
    expect(calls).toEqual([['Keep <x id="1"/> code.', 'Plain words here.'], ['Keep <x id="1"/> code.']]);
    expect(applyTranslations('Keep `this` code.\n\nPlain words here.\n', units, out.rebuilt)).toMatch(/^Keep `this` code\.\n\n⟦/);
    expect([...out.learned.keys()]).toHaveLength(1);
  });

  it('accepts an x placeholder written as a pair and refuses stray markup', () => {
    const [u] = segmentMarkdown('Run `a` now.\n');
    expect(rebuild(u, 'Lance <x id="1"></x> maintenant.')).toBe('Lance `a` maintenant.');
    expect(() => rebuild(u, 'Lance <x id="1"/> <b>maintenant</b>.')).toThrow(PlaceholderMismatch);
  });

  it('stays linear on hostile input', () => {
    const md = '{{'.repeat(20_000) + '\n\n' + '<'.repeat(20_000) + '\n';
    const units = segmentMarkdown(md);
    for (const u of units) expect(() => rebuild(u, u.text)).not.toThrow();
  });
});
