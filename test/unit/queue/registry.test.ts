import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { checkProcessors, PROCESSORS } from '../../../jobs/index.js';
import { JOBS, JOB_NAMES, queueFor } from '../../../src/queue/registry.js';

describe('job registry', () => {
  it('has exactly one processor per job name, each on a known queue', () => {
    expect(() => checkProcessors()).not.toThrow();
    expect(Object.keys(PROCESSORS).sort()).toEqual([...JOB_NAMES].sort());
    for (const name of JOB_NAMES) expect(loadConfig({}).workers.queues).toContain(JOBS[name].queue);
  });

  it('refuses to start with a missing or unknown processor', () => {
    expect(() => checkProcessors({})).toThrow(/missing processors \[openapi\.process[,\]]/);
    expect(() => checkProcessors({ ...PROCESSORS, 'mystery.job': () => {} })).toThrow(/unknown processors \[mystery.job\]/);
  });

  it('lets the caller name the queue only for a job that allows it (workers.ping)', () => {
    expect(queueFor('workers.ping', 'git')).toBe('git');
    expect(queueFor('workers.ping')).toBe('maintenance');
    expect(queueFor('workers.ping', 'no-such-queue')).toBe('maintenance');
    expect(queueFor('openapi.process', 'git')).toBe('openapi');
  });
});
