import client from 'prom-client';
import type { AppContext } from '../context.js';
import { jobStats, jobDurationBuckets } from '../db/repos/operations.js';
import { ALL_QUEUES } from '../config.js';

const DURATION_BOUNDS = [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900];

/**
 * Prometheus metrics of one API process: HTTP requests by route and status (in-process), and the
 * whole cluster's jobs by queue and outcome with their durations, read from the operations table
 * at scrape time, so one scrape of any API instance sees every worker's work however many run.
 */
export function createMetrics(app: AppContext) {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });

  const httpRequests = new client.Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
  });
  const httpDuration = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and method',
    labelNames: ['route', 'method'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });

  new client.Gauge({
    name: 'jobs_total',
    help: 'Operations (jobs) by queue, kind and outcome (queued, running, succeeded, failed, skipped), cluster-wide',
    labelNames: ['queue', 'kind', 'outcome'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await jobStats(app.db)) this.set({ queue: r.queue, kind: r.kind, outcome: r.status }, r.n);
    },
  });

  new client.Gauge({
    name: 'queue_jobs',
    help: 'Jobs in Redis by queue and BullMQ state',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      await Promise.all(
        ALL_QUEUES.map(async (q) => {
          try {
            const counts = await app.jobs.queue(q).getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed');
            for (const [state, n] of Object.entries(counts)) this.set({ queue: q, state }, n);
          } catch {
            /* Redis down: /readyz reports it; metrics stay scrapeable */
          }
        }),
      );
    },
  });

  // Histogram from the durable rows: rendered by hand since prom-client histograms only observe.
  const jobDuration = {
    name: 'job_duration_seconds',
    help: 'Duration of finished operations (started to finished) by queue, cluster-wide',
    async get() {
      const { buckets, totals } = await jobDurationBuckets(app.db, DURATION_BOUNDS);
      const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
      for (const t of totals) {
        for (const b of buckets.filter((x) => x.queue === t.queue)) {
          values.push({ labels: { queue: t.queue, le: b.le }, value: b.n, metricName: 'job_duration_seconds_bucket' });
        }
        values.push({ labels: { queue: t.queue, le: '+Inf' }, value: t.n, metricName: 'job_duration_seconds_bucket' });
        values.push({ labels: { queue: t.queue }, value: t.total, metricName: 'job_duration_seconds_sum' });
        values.push({ labels: { queue: t.queue }, value: t.n, metricName: 'job_duration_seconds_count' });
      }
      return { name: this.name, help: this.help, type: 'histogram', values, aggregator: 'sum' };
    },
    reset() {},
  };
  registry.registerMetric(jobDuration as unknown as client.Metric);

  // The labelled series of each (route, method[, status]), looked up once: prom-client would
  // otherwise hash the label object on every request. Routes are the router's patterns, so these
  // maps stay as small as the metric's own series.
  const counters = new Map<string, ReturnType<typeof httpRequests.labels>>();
  const durations = new Map<string, ReturnType<typeof httpDuration.labels>>();
  return {
    registry,
    observeHttp(route: string, method: string, status: number, seconds: number) {
      const key = `${method} ${route}`;
      const ckey = `${status} ${key}`;
      let c = counters.get(ckey);
      if (!c) counters.set(ckey, (c = httpRequests.labels({ route, method, status: String(status) })));
      c.inc();
      let d = durations.get(key);
      if (!d) durations.set(key, (d = httpDuration.labels({ route, method })));
      d.observe(seconds);
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
