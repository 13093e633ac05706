// SAML providers of an organization (organization admins only) and the list of SSO logins.
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import * as repo from '../db/repos/saml.js';
import type { SamlProviderRow } from '../db/repos/saml.js';
import { getTeam } from '../db/repos/teams.js';
import { getOrgForUser } from '../db/repos/organizations.js';
import { requireOrg } from '../policies/organizations.js';
import { teamPermissions } from '../policies/teams.js';
import { invalid, notFound } from '../core/errors.js';
import { buildPage, decodeCursor, DEFAULT_LIMIT } from '../core/pagination.js';
import type { Role } from '../core/roles.js';
import { parseCertificate } from '../sso/saml.js';
import { toSamlProvider, toSsoLogin } from '../presenters/saml.js';
import { toTeam } from '../presenters/teams.js';
import { newId } from '../util/ids.js';

export interface ProviderInput {
  label?: string;
  entityID?: string;
  certificate?: string;
  ssoURL?: string;
  defaultTeam?: string | null;
  defaultRole?: Role | null;
}

async function present(app: AppContext, p: SamlProviderRow) {
  const team = p.default_team_id ? await getTeam(app.db, p.organization_id, p.default_team_id) : null;
  return toSamlProvider(app, p, team ? toTeam(app, p.organization_id, team, teamPermissions('admin', null)) : undefined);
}

/** 400 naming the field: a certificate that is not X.509, a team of another organization. */
async function check(app: AppContext, orgId: string, input: ProviderInput) {
  if (input.certificate !== undefined) {
    try {
      const cert = parseCertificate(input.certificate);
      if (Date.parse(cert.validTo) < Date.now()) throw new Error(`the certificate expired on ${cert.validTo}`);
    } catch (err) {
      throw invalid(`Invalid request: body.certificate: ${(err as Error).message}`);
    }
  }
  if (input.defaultTeam && !(await getTeam(app.db, orgId, input.defaultTeam))) {
    throw invalid(`Invalid request: body.defaultTeam: no team "${input.defaultTeam}" in this organization`);
  }
}

export async function listProviders(app: AppContext, p: Principal, orgId: string, q: { page?: string; limit?: number }) {
  await requireOrg(app.db, p, orgId, 'admin');
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(q.page, 2) as [string, string] | undefined;
  const { rows, count } = await repo.listProviders(app.db, orgId, { limit, after });
  const page = buildPage(
    rows,
    limit,
    count,
    (r) => [r.sort_key, r.id],
    (r) => r,
  );
  return { ...page, items: await Promise.all(page.items.map((r) => present(app, r))) };
}

export async function createProvider(
  app: AppContext,
  p: Principal,
  orgId: string,
  input: Required<Pick<ProviderInput, 'label' | 'entityID' | 'certificate' | 'ssoURL'>> & ProviderInput,
) {
  await requireOrg(app.db, p, orgId, 'admin');
  await check(app, orgId, input);
  const id = newId();
  await repo.insertProvider(app.db, {
    id,
    orgId,
    label: input.label,
    entityId: input.entityID,
    certificate: input.certificate.trim(),
    ssoUrl: input.ssoURL,
    defaultTeam: input.defaultTeam ?? null,
    defaultRole: input.defaultRole ?? null,
  });
  return present(app, (await repo.getProvider(app.db, id, orgId))!);
}

async function load(app: AppContext, p: Principal, orgId: string, providerId: string) {
  await requireOrg(app.db, p, orgId, 'admin');
  const row = await repo.getProvider(app.db, providerId, orgId);
  if (!row) throw notFound(`SAML provider "${providerId}" not found`);
  return row;
}

export async function getProvider(app: AppContext, p: Principal, orgId: string, providerId: string) {
  return present(app, await load(app, p, orgId, providerId));
}

/** A new certificate or entity id puts the provider back to `pending` until its next good login. */
export async function updateProvider(app: AppContext, p: Principal, orgId: string, providerId: string, input: ProviderInput) {
  const row = await load(app, p, orgId, providerId);
  await check(app, orgId, input);
  const certificate = input.certificate?.trim();
  const identityChanged =
    (certificate !== undefined && certificate !== row.certificate) || (input.entityID !== undefined && input.entityID !== row.entity_id);
  await repo.updateProvider(app.db, providerId, {
    label: input.label,
    entityId: input.entityID,
    certificate,
    ssoUrl: input.ssoURL,
    defaultTeam: input.defaultTeam,
    defaultRole: input.defaultRole,
    status: identityChanged ? 'pending' : undefined,
  });
  return present(app, (await repo.getProvider(app.db, providerId, orgId))!);
}

/** 204 whether or not it existed. */
export async function deleteProvider(app: AppContext, p: Principal, orgId: string, providerId: string) {
  await requireOrg(app.db, p, orgId, 'admin');
  await repo.deleteProvider(app.db, orgId, providerId);
}

/** The active providers' start URLs (any signed-in caller: the login page shows them to anyone). */
export async function listSsoLogins(app: AppContext, p: Principal, orgId: string) {
  if (!(await getOrgForUser(app.db, orgId, p.userId))) throw notFound(`Organization "${orgId}" not found`);
  return { items: await activeLogins(app, orgId) };
}

export async function activeLogins(app: AppContext, orgId: string) {
  const { rows } = await repo.listProviders(app.db, orgId, { limit: 100, activeOnly: true });
  return rows.slice(0, 100).map((r) => toSsoLogin(app, r));
}
