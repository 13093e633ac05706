// What a service that is a job's body gets from the run executing it (workers/runner.ts). A job
// processor's context has this shape, so a processor passes its context as it is; a unit test
// passes a small object. How a body's outcome becomes the operation's state:
// - it returns: the operation succeeds with that result;
// - it throws a domain error (src/core/errors.ts): a final failure with its message, no retry
//   (the one mapping, jobs/failures.ts);
// - it throws `JobSkipped` (src/queue/errors.ts): nothing to do (superseded, the target deleted), the
//   operation ends `skipped` with the reason;
// - anything else (a database or storage failure, a crash): the attempt failed, BullMQ retries.
import type { Queryable } from '../db/pool.js';
import type { Logger } from '../log.js';

export interface OperationRun {
  /** The operation this run holds. */
  operation: { id: string; created_by: string | null };
  log: Logger;
  /** Report progress in [0, 1] (written to the operation row). */
  progress(fraction: number): Promise<void>;
  /**
   * Call inside the transaction that commits the operation's effect, before committing: throws if
   * another run of the operation took it over, so the effect is committed by one run only.
   */
  fence(c: Queryable): Promise<void>;
}
