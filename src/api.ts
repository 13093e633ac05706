// API process entrypoint: `npm run start:api`.
import { loadConfig } from './config.js';
import { createAppContext, closeAppContext } from './context.js';
import { createApiServer } from './server.js';
import { bootstrap } from './services/identity.js';
import { orExitOnConfigError, stopOnSignals } from './lifecycle.js';

const config = orExitOnConfigError(() => loadConfig());
const app = await createAppContext(config, 'api');
if (config.bootstrap) {
  const created = await bootstrap(app.db);
  if (created) {
    // Printed once, on the first start with an empty database; it is not stored in clear anywhere.
    process.stdout.write(
      `\n  First start: created organization ${created.orgId} and admin user ${created.userId}.\n` +
        `  Admin API token (shown once, keep it safe):\n\n    ${created.token}\n\n`,
    );
  }
}
const api = createApiServer(app);
api.server.listen(config.port, config.host, () => {
  app.log.info({ port: config.port, host: config.host, publicUrl: config.publicUrl }, 'API listening');
});

// SIGTERM: stop accepting, answer what is in flight (src/http/shutdown.ts), then close the pool
// and Redis, only after the last request finished.
stopOnSignals(app.log, config.shutdownTimeoutMs + 5_000, async () => {
  app.log.info('API shutting down: no new connections, finishing in-flight requests');
  await api.close();
  await closeAppContext(app);
});
