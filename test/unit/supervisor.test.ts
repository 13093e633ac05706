import { describe, expect, it } from 'vitest';
import { nextRestart, type BackoffPolicy } from '../../src/supervisor.js';

describe('restart backoff of npm start children', () => {
  const policy: BackoffPolicy = { initialMs: 1000, maxMs: 30_000, stableMs: 60_000 };

  it('doubles the delay for each quick exit in a row, up to the maximum', () => {
    let quickExits = 0;
    const delays: number[] = [];
    for (let i = 0; i < 8; i++) {
      const next = nextRestart(policy, quickExits, 500);
      delays.push(next.delayMs);
      quickExits = next.quickExits;
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('starts again from the shortest delay after a child stayed up for the stable period', () => {
    const crashing = nextRestart(policy, 5, 2000);
    expect(crashing.delayMs).toBe(30_000);
    const afterStableRun = nextRestart(policy, crashing.quickExits, 60_000);
    expect(afterStableRun).toEqual({ delayMs: 1000, quickExits: 1 });
  });

  it('never overflows however many times a child crashed', () => {
    expect(nextRestart(policy, 10_000, 0).delayMs).toBe(30_000);
  });
});
