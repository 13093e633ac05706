import { Queue, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import type { Config, QueueName } from '../config.js';
import { ALL_QUEUES } from '../config.js';
import { JOBS, isJobName, queueFor, startsAtOnce, type JobData, type JobSpec } from './registry.js';

/** BullMQ connection options parsed from REDIS_URL (workers need their own blocking connection). */
export function redisConnection(url: string): ConnectionOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    tls: u.protocol === 'rediss:' ? {} : undefined,
    maxRetriesPerRequest: null,
  };
}

export function createRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false });
}

/** Enqueues jobs by operation id. One instance per process; shares one Redis connection across queues. */
export class JobClient {
  private readonly queues = new Map<QueueName, Queue<JobData>>();
  readonly connection: Redis;

  constructor(
    private readonly config: Config,
    connection?: Redis,
  ) {
    this.connection = connection ?? createRedis(config.redisUrl);
  }

  queue(name: QueueName): Queue<JobData> {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue<JobData>(name, { connection: this.connection, prefix: this.config.queuePrefix });
      this.queues.set(name, q);
    }
    return q;
  }

  allQueues(): Queue<JobData>[] {
    return ALL_QUEUES.map((q) => this.queue(q));
  }

  /**
   * Add the job for an operation; the job id is the operation id, so adding twice is a no-op. The
   * queue is the registry's, or the operation's own for a job that lets its caller choose (`anyQueue`).
   * A job that starts at once carries a copy of the payload when the caller has it (without it, it
   * runs after its claim, as the others do). `delayMs`: the job waits that long in the queue first
   * (a job the reconciler enqueues again after Redis lost it runs at once).
   */
  async enqueue(
    op: { id: string; kind: string; queue?: string; payload?: Record<string, unknown> },
    opts: { delayMs?: number } = {},
  ): Promise<void> {
    if (!isJobName(op.kind)) throw new Error(`Unknown job kind "${op.kind}"`);
    const spec: JobSpec = JOBS[op.kind];
    const w = this.config.workers;
    const data: JobData = startsAtOnce(op.kind) && op.payload ? { operationId: op.id, payload: op.payload } : { operationId: op.id };
    await this.queue(queueFor(op.kind, op.queue)).add(op.kind, data, {
      jobId: op.id,
      ...(opts.delayMs ? { delay: opts.delayMs } : {}),
      attempts: spec.attempts ?? w.attempts,
      backoff: { type: 'exponential', delay: w.backoffMs },
      removeOnComplete: { count: w.keepCompleted },
      removeOnFail: { count: w.keepFailed },
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
    await this.connection.quit().catch(() => this.connection.disconnect());
  }
}
