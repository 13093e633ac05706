import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { withTx } from '../db/pool.js';
import * as orgs from '../db/repos/organizations.js';
import type { OrgWithMembership } from '../db/repos/organizations.js';
import { buildPage, decodeCursor, DEFAULT_LIMIT } from '../core/pagination.js';
import { conflict } from '../core/errors.js';
import { orgPermissions, requireOrg } from '../policies/organizations.js';
import { toOrganization } from '../presenters/organizations.js';

/** The Organization object with the permissions of the member it was loaded for. */
export function presentOrganization(app: AppContext, o: OrgWithMembership) {
  return toOrganization(app, o, orgPermissions(o));
}

export async function listOrganizations(app: AppContext, p: Principal, q: { page?: string; limit?: number }) {
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(q.page, 2) as [string, string] | undefined;
  const { rows, count } = await orgs.listOrgsForUser(app.db, p.userId, limit, after);
  return buildPage(
    rows,
    limit,
    count,
    (r) => [r.sort_key, r.id],
    (r) => presentOrganization(app, r),
  );
}

export async function getOrganization(app: AppContext, p: Principal, orgId: string) {
  const { org, permissions } = await requireOrg(app.db, p, orgId, 'view');
  return toOrganization(app, org, permissions);
}

interface OrgPatch {
  title?: string;
  emailDomains?: string[];
  hostname?: string;
  defaultRole?: string | null;
  defaultContent?: { type: 'site'; site: string } | null;
  logo?: string | null;
  sso?: boolean;
  ai?: boolean;
  inviteLinks?: boolean;
}

export async function updateOrganization(app: AppContext, p: Principal, orgId: string, patch: OrgPatch) {
  await requireOrg(app.db, p, orgId, 'admin');
  const normalized = {
    ...patch,
    emailDomains: patch.emailDomains ? [...new Set(patch.emailDomains.map((d) => d.toLowerCase()))] : undefined,
  };
  try {
    await withTx(app.db, (c) => orgs.updateOrg(c, orgId, normalized));
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw conflict(`Hostname "${patch.hostname}" is already taken`);
    throw err;
  }
  return getOrganization(app, p, orgId);
}

/** Organizations a user with an address at `domain` could join. */
export async function organizationsForEmailDomain(app: AppContext, p: Principal, domain: string) {
  const rows = await orgs.listOrgsByEmailDomain(app.db, domain, p.userId);
  return { organizations: rows.map((r) => presentOrganization(app, r)) };
}

export async function deleteLinkInvite(app: AppContext, p: Principal, orgId: string, inviteId: string) {
  await requireOrg(app.db, p, orgId, 'admin');
  await orgs.deleteLinkInvite(app.db, orgId, inviteId);
}
