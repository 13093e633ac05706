import { route, ok } from '../http/route.js';
import type { Metrics } from '../ops/metrics.js';
import { ping } from '../db/repos/settings.js';
import { landingRoutes } from './landing.js';

/**
 * Operators' endpoints: no bearer token (keep them off the public internet, or scrape inside); and
 * the home page `/` that links to them (src/routes/landing.ts).
 */
export function systemRoutes(metrics: Metrics, draining: () => boolean = () => false) {
  return [
    ...landingRoutes,
    route({
      method: 'GET',
      path: '/healthz',
      auth: false,
      rateLimited: false,
      handler: async () => ok({ status: 'ok' }),
    }),
    route({
      method: 'GET',
      path: '/readyz',
      auth: false,
      rateLimited: false,
      handler: async ({ app }) => {
        if (draining()) return { status: 503, body: { status: 'draining', checks: {} } };
        const checks = await Promise.all([
          ping(app.db).then(
            () => ['postgres', 'ok'] as const,
            (e: Error) => ['postgres', e.message] as const,
          ),
          withTimeout(app.jobs.connection.ping(), 2000).then(
            () => ['redis', 'ok'] as const,
            (e: Error) => ['redis', e.message] as const,
          ),
        ]);
        const body = Object.fromEntries(checks);
        const ready = checks.every(([, v]) => v === 'ok');
        return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not ready', checks: body } };
      },
    }),
    route({
      method: 'GET',
      path: '/metrics',
      auth: false,
      rateLimited: false,
      handler: async () => ({
        status: 200,
        body: await metrics.registry.metrics(),
        headers: { 'content-type': metrics.registry.contentType },
      }),
    }),
  ];
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms).unref())]);
}
