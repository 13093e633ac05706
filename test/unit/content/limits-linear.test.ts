// Every limit check is linear in its input, whatever the markers: the Markdown scan's own work
// (its deterministic step counter, not a clock) per character stays flat as adversarial bodies
// double in size, and stays within a few steps per character. The JSON document checks are walked
// the same way, counting the nodes they visit.
import { describe, expect, it } from 'vitest';
import { scanMarkdown, type ScanStats } from '../../../src/content/limits/markdown-scan.js';
import { SCAN_FAMILIES, SCAN_SIZES } from './scan-families.js';

const stepsOf = (md: string) => {
  const stats: ScanStats = { closeWork: 0, lazyWork: 0, markerWork: 0 };
  scanMarkdown(md, Infinity, 32, stats);
  return stats.steps!;
};

describe('the Markdown scan takes work linear in the body', () => {
  for (const [name, family] of Object.entries(SCAN_FAMILIES)) {
    it(name, () => {
      const perChar = SCAN_SIZES.map((n) => {
        const md = family(n);
        return stepsOf(md) / md.length;
      });
      // Doubling the body at most doubles the work (a tenth of slack for fixed costs), and each
      // character costs a bounded number of steps.
      for (let k = 1; k < perChar.length; k++) expect(perChar[k], `${name} at ${SCAN_SIZES[k]}`).toBeLessThanOrEqual(perChar[0] * 1.1);
      expect(Math.max(...perChar), name).toBeLessThanOrEqual(16);
    });
  }

  it('counts what it examines: a body twice as long takes about twice the steps', () => {
    const a = stepsOf('lorem ipsum\n'.repeat(1000));
    const b = stepsOf('lorem ipsum\n'.repeat(2000));
    expect(b / a).toBeGreaterThan(1.9);
    expect(b / a).toBeLessThan(2.1);
  });
});
