// The one mapping from what a job's service throws to how the job ends (jobs/failures.ts).
import { describe, expect, it } from 'vitest';
import { asJobFailure } from '../../../jobs/failures.js';
import { DomainError, invalid } from '../../../src/core/errors.js';
import { JobFailure, JobSkipped, LeaseLost } from '../../../src/queue/errors.js';
import { GitSyncError } from '../../../src/git/repo.js';
import { ImportError } from '../../../src/import/website.js';
import { PageRenderError } from '../../../src/render/document.js';
import { SpecParseError } from '../../../src/content/openapi.js';
import { WriteTargetGoneError } from '../../../src/content/commit.js';

function thrownBy(err: unknown): unknown {
  try {
    asJobFailure(err);
  } catch (e) {
    return e;
  }
  throw new Error('asJobFailure returned');
}

describe('asJobFailure', () => {
  it("turns the engines' final outcomes, and any domain error, into a final JobFailure with the same message", () => {
    const finals = [
      new GitSyncError('The remote has no branch "main"', 'not-found'),
      new ImportError('Change request #3 was archived before the import ran'),
      new PageRenderError('Intro', 'image file f1 is missing'),
      new SpecParseError('The document is not an object'),
      new WriteTargetGoneError('space', 'Space "s1" not found'),
      invalid('payload.before: "soon" is not a date'),
    ];
    for (const err of finals) {
      expect(err).toBeInstanceOf(DomainError);
      const out = thrownBy(err);
      expect(out, err.message).toBeInstanceOf(JobFailure);
      expect((out as Error).message).toBe(err.message);
    }
  });

  it('lets everything else through unchanged: skips, failures, lost leases, and errors BullMQ retries', () => {
    for (const err of [
      new JobSkipped('The space was deleted'),
      new JobFailure('bad'),
      new LeaseLost('op1'),
      new Error('ECONNRESET'),
      'a string',
    ])
      expect(thrownBy(err)).toBe(err);
  });

  it('keeps the kinds that say what went wrong', () => {
    expect(new GitSyncError('x').kind).toBe('unprocessable');
    expect(new ImportError('x').kind).toBe('conflict');
    expect(new PageRenderError('p', 'x').kind).toBe('unprocessable');
    expect(new SpecParseError('x')).toMatchObject({ kind: 'unprocessable', code: 'PARSE_ERROR', name: 'SpecParseError' });
  });
});
