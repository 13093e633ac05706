// The service-provider side of a SAML login: metadata, start, assertion consumer, the session it
// opens, the page that shows a new API token once, and the token-free login page of an organization.
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { withTx } from '../db/pool.js';
import * as repo from '../db/repos/saml.js';
import type { SamlProviderRow } from '../db/repos/saml.js';
import * as users from '../db/repos/users.js';
import * as members from '../db/repos/members.js';
import { ensureTeamMember } from '../db/repos/teams.js';
import { getOrgForUser } from '../db/repos/organizations.js';
import { insertToken } from '../db/repos/tokens.js';
import { DomainError, notFound } from '../core/errors.js';
import { authorizeUrl, consume, metadata, REQUEST_TTL_MS, type CacheProvider, type ServiceProviderSettings } from '../sso/saml.js';
import { failurePage, loginPage, tokenPage } from '../sso/pages.js';
import { serviceUrls } from '../presenters/saml.js';
import { activeLogins } from './saml.js';
import { applyInvitesAtSignIn } from './invites.js';
import { recordAudit } from './audit.js';
import { organizationsOfUser } from '../db/repos/audit.js';
import { newId, newToken, sha256Hex } from '../util/ids.js';
import type { Logger } from '../log.js';

export const SESSION_COOKIE = 'dp_session';
export const SESSION_TTL_MS = 8 * 3600_000;

/** node-saml's request-id cache, in PostgreSQL and scoped to one provider: every API instance sees it. */
function cacheFor(app: AppContext, providerId: string): CacheProvider {
  return {
    async saveAsync(key, value) {
      await repo.saveRequest(app.db, providerId, key, value, REQUEST_TTL_MS);
      return { value, createdAt: Date.now() };
    },
    getAsync: (key) => repo.getRequest(app.db, providerId, key),
    removeAsync: async (key) => (key ? repo.removeRequest(app.db, providerId, key) : null),
  };
}

function settings(app: AppContext, p: SamlProviderRow): ServiceProviderSettings {
  const urls = serviceUrls(app, p.id);
  return {
    entityId: urls.entityID,
    acsUrl: urls.acsURL,
    idpEntityId: p.entity_id,
    idpSsoUrl: p.sso_url,
    idpCertificate: p.certificate,
    cache: cacheFor(app, p.id),
  };
}

async function provider(app: AppContext, providerId: string): Promise<SamlProviderRow> {
  const p = await repo.getProvider(app.db, providerId);
  if (!p) throw notFound(`SAML provider "${providerId}" not found`);
  return p;
}

export async function spMetadata(app: AppContext, providerId: string): Promise<string> {
  return metadata(settings(app, await provider(app, providerId)));
}

/** The identity provider's URL with a new, tracked AuthnRequest. */
export async function startLogin(app: AppContext, providerId: string): Promise<string> {
  return authorizeUrl(settings(app, await provider(app, providerId)), '');
}

/** A refused login: the reason is logged, the caller sees a generic page. */
export class LoginRefused extends DomainError {
  constructor() {
    super('invalid', 'Sign-in failed');
  }
}

/**
 * Validate the assertion and sign the person in: found or created by e-mail, added to the
 * organization with the provider's default role when new (an existing role is kept), flagged
 * `sso`, put into the default team. Returns the new session id (for the cookie).
 */
export async function consumeLogin(
  app: AppContext,
  providerId: string,
  samlResponse: string | undefined,
  log: Logger,
  clientAddress: string | null = null,
): Promise<string> {
  const p = await repo.getProvider(app.db, providerId);
  const refuse = (reason: string) => {
    log.warn({ providerId, reason }, 'SAML login refused');
    return new LoginRefused();
  };
  if (!p) throw refuse('unknown provider');
  if (!samlResponse) throw refuse('no SAMLResponse in the form');
  let login;
  try {
    login = await consume(settings(app, p), samlResponse);
  } catch (err) {
    throw refuse((err as Error).message);
  }
  if (!(await repo.consumeAssertion(app.db, p.id, login.assertionId, login.expiresAt))) throw refuse('assertion replayed');
  const sessionId = randomBytes(32).toString('base64url');
  await withTx(app.db, async (c) => {
    const user =
      (await users.findUserByEmail(c, login.email)) ??
      (await users.insertUser(c, { id: newId(), email: login.email, displayName: login.displayName ?? login.email.split('@')[0] }));
    const member = await members.getMember(c, p.organization_id, user.id);
    if (member?.disabled) throw refuse('the membership is disabled');
    // An invite of this address to the organization gives its role, teams and spaces (issue 28).
    const invited = await applyInvitesAtSignIn(c, p.organization_id, user.id, login.email);
    if (!member && !invited) await members.insertMember(c, p.organization_id, user.id, p.default_role);
    await members.setMemberSso(c, p.organization_id, user.id);
    if (p.default_team_id) await ensureTeamMember(c, p.default_team_id, user.id);
    await repo.markProviderLogin(c, p.id);
    await repo.insertSession(c, {
      idHash: sha256Hex(sessionId),
      userId: user.id,
      orgId: p.organization_id,
      providerId: p.id,
      ttlMs: SESSION_TTL_MS,
    });
    await recordAudit(c, {
      organizationIds: [p.organization_id],
      action: 'sso.signin',
      actor: { type: 'user', id: user.id },
      source: 'ui',
      target: { type: 'saml-provider', id: p.id, label: p.label },
      clientAddress,
      payload: { provider: p.id, invited, newMember: !member },
    });
  });
  log.info({ providerId }, 'SAML login');
  return sessionId;
}

export function loginFailedPage(): string {
  return failurePage();
}

/** The session of a `dp_session` cookie value, or null. */
export async function sessionPrincipal(app: AppContext, cookieValue: string | undefined): Promise<(Principal & { orgId: string }) | null> {
  if (!cookieValue || cookieValue.length > 128) return null;
  const hash = sha256Hex(cookieValue);
  const s = await repo.findSession(app.db, hash);
  return s ? { userId: s.user_id, tokenId: `session:${hash.slice(0, 16)}`, orgId: s.organization_id, ssoOrgId: s.organization_id } : null;
}

/** After the login: who is signed in, and a new API token the first time this page is shown for the session. */
export async function welcomePage(
  app: AppContext,
  cookieValue: string | undefined,
  clientAddress: string | null = null,
): Promise<string | null> {
  const s = await sessionPrincipal(app, cookieValue);
  if (!s) return null;
  const user = await users.getUser(app.db, s.userId);
  if (!user) return null;
  let token: string | null = null;
  if (await repo.claimSessionToken(app.db, sha256Hex(cookieValue!))) {
    token = newToken();
    const tokenId = newId();
    await insertToken(app.db, { id: tokenId, userId: user.id, hash: sha256Hex(token), label: 'sso', ssoOrgId: s.orgId });
    await recordAudit(app.db, {
      organizationIds: await organizationsOfUser(app.db, user.id),
      action: 'tokens.create',
      actor: { type: 'user', id: user.id },
      source: 'ui',
      target: { type: 'api-token', id: tokenId, label: 'sso' },
      clientAddress,
      payload: { reason: 'sso', organization: s.orgId },
    });
  }
  return tokenPage(user.display_name, user.email, token);
}

export async function orgLoginPage(app: AppContext, orgId: string): Promise<string> {
  const org = await getOrgForUser(app.db, orgId, ''); // nobody's membership: the organization alone
  if (!org) throw notFound(`Organization "${orgId}" not found`);
  return loginPage(org.title, await activeLogins(app, orgId));
}
