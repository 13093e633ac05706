// 'workers.ping': the job that does nothing. An operator's health check of a worker pool
// (`npm run cli -- workers ping --queue git`): it is accepted, queued and run exactly as a real job
// (durable operation row, BullMQ, the shared runner's claim and final state), so its success says
// the pool takes and finishes jobs, and its result says which worker ran it and when it began.
import { hostname } from 'node:os';
import type { Processor } from './types.js';

const WORKER = `${hostname()}:${process.pid}`;

export const pingWorkers: Processor<'workers.ping'> = async (_payload, ctx) => ({
  worker: WORKER,
  queue: ctx.job.queueName,
  /** When this processor began, in milliseconds since the epoch with sub-millisecond precision. */
  startedAt: performance.timeOrigin + performance.now(),
});
