import type { AppContext } from '../context.js';
import type { SamlProviderRow } from '../db/repos/saml.js';
import { appUrls } from './urls.js';

/** Our service-provider endpoints for one identity provider (token-free, under /sso/saml/{id}). */
export function serviceUrls(app: AppContext, providerId: string) {
  const base = `${app.config.publicUrl}/sso/saml/${providerId}`;
  return { entityID: `${base}/metadata`, acsURL: `${base}/acs`, startURL: `${base}/start` };
}

export function toSamlProvider(app: AppContext, p: SamlProviderRow, defaultTeam?: Record<string, unknown>) {
  return {
    object: 'saml-provider',
    id: p.id,
    label: p.label,
    ssoURL: p.sso_url,
    entityID: p.entity_id,
    certificate: p.certificate,
    ...(defaultTeam ? { defaultTeam } : {}),
    defaultRole: p.default_role,
    createdAt: p.created_at.toISOString(),
    status: p.status,
    service: serviceUrls(app, p.id),
    urls: { location: appUrls(app).api(`/orgs/${p.organization_id}/saml/${p.id}`) },
  };
}

export function toSsoLogin(app: AppContext, p: SamlProviderRow) {
  return { id: p.id, label: p.label, startURL: serviceUrls(app, p.id).startURL };
}
