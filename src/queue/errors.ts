// Outcomes a job processor throws; the runner (workers/runner.ts) maps each to the operation's state.
import { UnrecoverableError } from 'bullmq';

/** Bad input or a final outcome: fail the operation now, without retries. */
export class JobFailure extends UnrecoverableError {
  constructor(message: string) {
    super(message);
    this.name = 'JobFailure';
  }
}

/** Nothing to do (superseded, target gone): the operation ends as `skipped` with this reason. */
export class JobSkipped extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'JobSkipped';
  }
}

/** This run no longer holds its operation: another run took it over. Its work must not be committed. */
export class LeaseLost extends Error {
  constructor(operationId: string) {
    super(`Operation ${operationId} was taken over by another run`);
    this.name = 'LeaseLost';
  }
}
