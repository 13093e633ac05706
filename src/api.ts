// API process entrypoint: `npm run start:api`.
import { loadConfig } from './config.js';
import { createAppContext, closeAppContext } from './context.js';
import { createApiServer } from './server.js';
import { bootstrap, operatorEmail } from './services/identity.js';
import { orExitOnConfigError, stopOnSignals } from './lifecycle.js';
import { addressesBanner, firstStartBanner, serviceLinks } from './ops/welcome.js';

const config = orExitOnConfigError(() => loadConfig());
const app = await createAppContext(config, 'api');
// On the first start with an empty database: an organization, its admin and a token, printed once
// here (it is not stored in clear anywhere), before listening so that a busy port does not lose it.
const created = config.bootstrap ? await bootstrap(app.db) : null;
if (created) process.stdout.write(firstStartBanner(created));
// Whom a new token is issued for, printed on every start: the first operator (a placeholder when
// it cannot be read, say an unmigrated database with AUTO_MIGRATE=false: requests will say why).
const email = created?.email ?? (await operatorEmail(app.db).catch(() => null));
// The Markdown threads started and warmed before the first request: the first page rendered after
// a start is then not seconds slower than the next (src/render/pool.ts MarkdownPool.start).
await app.markdown.start().catch((err) => app.log.warn({ err }, 'the Markdown pool did not start; it starts on first use'));
const api = createApiServer(app);
api.server.listen(config.port, config.host, () => {
  app.log.info({ port: config.port, host: config.host, publicUrl: config.publicUrl, urls: serviceLinks(config) }, 'API listening');
  process.stdout.write(addressesBanner(config, email));
});

// SIGTERM: stop accepting, answer what is in flight (src/http/shutdown.ts), then close the pool
// and Redis, only after the last request finished.
stopOnSignals(app.log, config.shutdownTimeoutMs + 5_000, async () => {
  app.log.info('API shutting down: no new connections, finishing in-flight requests');
  await api.close();
  await closeAppContext(app);
});
