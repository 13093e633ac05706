// Where a newcomer goes from here: the addresses the API's start-up prints (src/api.ts) and the
// home page `/` links to (src/routes/landing.ts), from one definition.
import type { Config } from '../config.js';
import type { Bootstrapped } from '../services/identity.js';

export interface ServiceLinks {
  /** This home page. */
  home: string;
  /** Base of the REST API (`/v1/...`); a client such as `@gitbook/api` takes PUBLIC_URL as its endpoint. */
  api: string;
  /** The readable API reference (swagger-ui). */
  reference: string;
  /** This server's OpenAPI 3.1 description. */
  openapi: string;
  /** The job dashboard (operators). */
  dashboard: string;
  health: string;
  readiness: string;
  metrics: string;
}

export function serviceLinks(config: Pick<Config, 'publicUrl' | 'adminPath'>): ServiceLinks {
  const base = config.publicUrl;
  return {
    home: `${base}/`,
    api: `${base}/v1`,
    reference: `${base}/docs`,
    openapi: `${base}/openapi.json`,
    dashboard: `${base}${config.adminPath}`,
    health: `${base}/healthz`,
    readiness: `${base}/readyz`,
    metrics: `${base}/metrics`,
  };
}

/** The command that issues a new API token for `email`. */
export function newTokenCommand(email: string | null): string {
  return `npm run cli -- token create --email ${email ?? '<email>'}`;
}

/**
 * What the first start created, printed at once (before the API listens, so that a port already
 * in use does not lose it): the admin token's only appearance, since only its hash is stored.
 */
export function firstStartBanner(created: Bootstrapped): string {
  return [
    '',
    `  First start: created the organization "${created.orgTitle}" (${created.orgId})`,
    `  and its admin ${created.email} (${created.userId}), an operator.`,
    '  Admin API token (shown this once, only its hash is stored; keep it safe):',
    '',
    `    ${created.token}`,
    '',
    '',
  ].join('\n');
}

/**
 * Where to go, printed on every start once the API listens. Plain text for a person, whatever
 * LOG_FORMAT is; the log line "API listening" carries the same addresses as fields.
 */
export function addressesBanner(config: Pick<Config, 'publicUrl' | 'adminPath'>, operatorEmail: string | null): string {
  const l = serviceLinks(config);
  return [
    '',
    `  Home           ${l.home}`,
    `  API            ${l.api}   e.g. curl -H "Authorization: Bearer $TOKEN" ${l.api}/orgs`,
    `  Reference      ${l.reference}   (OpenAPI: ${l.openapi})`,
    `  Job dashboard  ${l.dashboard}   (operators; in a browser, open it once with ?token=$TOKEN)`,
    `  Health         ${l.health}   readiness: ${l.readiness}`,
    `  New token      ${newTokenCommand(operatorEmail)}`,
    '',
    '',
  ].join('\n');
}
