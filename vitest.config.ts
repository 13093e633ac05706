import { defineConfig } from 'vitest/config';

// Two projects, one run: `npm test` runs both; `npm run test:unit` (vitest run --project unit) runs
// only the pure tests, which need neither PostgreSQL nor Redis and so skip the global setup that
// checks for them. Vitest runs a project's global setup only when that project has files to run, so
// `npx vitest run test/unit/content/merge.test.ts` does not need the services either.
export default defineConfig({
  test: {
    // Integration tests start real servers, workers and child processes; keep files
    // in parallel but give each generous time (no timing assertions are made).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/helpers/global-setup.ts'],
        },
      },
    ],
  },
});
