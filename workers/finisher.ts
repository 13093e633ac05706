import type { Queryable } from '../src/db/pool.js';
import * as ops from '../src/db/repos/operations.js';
import type { FinalState } from '../src/db/repos/operations.js';

interface Waiting {
  state: FinalState;
  resolve: (released: boolean) => void;
  reject: (err: unknown) => void;
}

/**
 * Final states of a process's runs, written in batches: one statement and one durable commit for
 * every final state handed over while the previous batch was being written (a batch goes out at
 * once when none is in flight, so a lone job waits for nothing but its own commit). Under load
 * the commits, and their WAL flushes, are shared instead of taken in turn.
 *
 * A failed write is retried after `retryDelays` (the run's work is done: only the write is
 * retried, never the processor); then every state of the batch is rejected.
 */
export class Finisher {
  private queue: Waiting[] = [];
  private inFlight: Promise<void> | null = null;
  private open = 0;
  /** States handed over as promises and still being made (see `finish`). */
  private readonly awaited = new Set<Promise<unknown>>();

  constructor(
    private readonly db: Queryable,
    private readonly maxBatch = 256,
    private readonly retryDelays: readonly number[] = [200, 1000, 5000],
  ) {}

  /** Final states handed over and not yet durable (or failed). */
  get pending(): number {
    return this.open;
  }

  /**
   * Write `state` durably; resolves with whether it was recorded (false: already final, or the run
   * lost its lease). `state` may be a promise of it (a run whose claim is still on its way), or of
   * null (nothing to write after all: false); it counts as pending, and `drain` waits for it.
   */
  finish(state: FinalState | Promise<FinalState | null>): Promise<boolean> {
    this.open++;
    const written = state instanceof Promise ? this.later(state) : this.write1(state);
    return written.finally(() => this.open--);
  }

  /** Resolves once every state handed over so far has been written (or has failed). */
  async drain(): Promise<void> {
    while (this.inFlight || this.awaited.size) await (this.inFlight ?? Promise.allSettled(this.awaited));
  }

  private later(state: Promise<FinalState | null>): Promise<boolean> {
    const written = state.then((s) => (s ? this.write1(s) : false));
    const tracked = written.catch(() => {});
    this.awaited.add(tracked);
    void tracked.then(() => this.awaited.delete(tracked));
    return written;
  }

  private write1(state: FinalState): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ state, resolve, reject });
      if (!this.inFlight) this.flush();
    });
  }

  private flush() {
    // One state per operation in a batch: a second one for the same id waits for the next.
    const batch: Waiting[] = [];
    const ids = new Set<string>();
    const later: Waiting[] = [];
    for (const w of this.queue) {
      if (batch.length < this.maxBatch && !ids.has(w.state.id)) {
        ids.add(w.state.id);
        batch.push(w);
      } else later.push(w);
    }
    this.queue = later;
    this.inFlight = this.write(batch).finally(() => {
      this.inFlight = null;
      if (this.queue.length) this.flush();
    });
  }

  private async write(batch: Waiting[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const done = await ops.finishOperations(
          this.db,
          batch.map((w) => w.state),
        );
        for (const w of batch) w.resolve(done.has(w.state.id));
        return;
      } catch (err) {
        if (attempt >= this.retryDelays.length) {
          for (const w of batch) w.reject(err);
          return;
        }
        await new Promise((r) => setTimeout(r, this.retryDelays[attempt]));
      }
    }
  }
}
