// The one mapping from what a job's service throws to how the job ends (workers/runner.ts records
// it on the operation):
// - a domain error (src/core/errors.ts: GitSyncError, ImportError, PageRenderError, an invalid
//   payload, ...) is a final, user-visible outcome: a JobFailure with its message, no retry;
// - anything else goes through as it is: JobSkipped (superseded, target deleted) ends the operation
//   `skipped`, a JobFailure fails it, LeaseLost stops the run, and any other error (a database or
//   storage failure, a crash, a timeout) fails the attempt and BullMQ retries.
import { DomainError } from '../src/core/errors.js';
import { JobFailure } from '../src/queue/errors.js';

/** A processor's catch: rethrows a domain error as a final JobFailure, anything else unchanged. */
export function asJobFailure(err: unknown): never {
  throw err instanceof DomainError ? new JobFailure(err.message) : err;
}
