// Invites (issue 28 item 3): by e-mail (inviteUsersToOrganization) and by link
// (createOrganizationInvite ...), and joining with one (joinOrganizationWithInvite, or the
// e-mail's link in a browser, or an SSO sign-in of the invited address).
//
// - Every invite carries a secret token: 256 random bits, shown once (in the e-mail, or in the
//   answer that created the link), stored as its SHA-256 only. The link's `id` is a public handle
//   for its admins; joining needs the token.
// - An e-mail invite is single-use and expires after INVITE_TTL_DAYS; the address it was sent to
//   is the only one that may use it. Opening its link in a browser signs the invitee in (the
//   link proves the address) and shows a new API token once.
// - Invite links need the organization's `inviteLinks` setting: a disabled setting refuses their
//   creation and every join with one (403).
// - An organization that enforces SSO lets invitees in only through it: joining with a credential
//   that its SSO did not issue is refused, and the e-mail link sends to its sign-in page; the
//   sign-in applies the invite (`applyInvitesAtSignIn`).
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/pool.js';
import { withTx } from '../db/pool.js';
import * as repo from '../db/repos/invites.js';
import * as members from '../db/repos/members.js';
import * as users from '../db/repos/users.js';
import { deleteLinkInvite, getOrgForUser, lockOrganization } from '../db/repos/organizations.js';
import { ensureTeamMember } from '../db/repos/teams.js';
import { setUserGrant } from '../db/repos/grants.js';
import { getSpace } from '../db/repos/spaces.js';
import { insertToken } from '../db/repos/tokens.js';
import { organizationsOfUser } from '../db/repos/audit.js';
import { atLeast, type Role } from '../core/roles.js';
import { forbidden, gone, invalid, notFound } from '../core/errors.js';
import { buildPage, decodeCursor, DEFAULT_LIMIT } from '../core/pagination.js';
import { requireOrg } from '../policies/organizations.js';
import { spacePermissions } from '../policies/spaces.js';
import { toInviteLink } from '../presenters/invites.js';
import { toSpace } from '../presenters/spaces.js';
import { inviteMail } from '../mail/templates.js';
import { inviteClosedPage, invitePage } from '../sso/invite-pages.js';
import { tokenPage } from '../sso/pages.js';
import { newId, newToken, sha256Hex } from '../util/ids.js';
import { randomBytes } from 'node:crypto';
import { sendAfterCommit } from './mail.js';
import { recordAudit, actorOf } from './audit.js';

export const INVITE_TTL_DAYS = 7;
const DAY_MS = 86_400_000;
export const MAX_INVITES_PER_CALL = 100;

const newInviteToken = () => `inv_${randomBytes(32).toString('base64url')}`;

function inviteUrl(app: AppContext, token: string) {
  return `${app.config.publicUrl}/invites/${token}`;
}

/** Set a membership to `role` unless it already has at least that role: an invite never demotes (a guest invite keeps any role). */
async function grantMembership(c: Queryable, orgId: string, userId: string, role: Role | null): Promise<void> {
  const m = await members.getMembership(c, orgId, userId);
  if (m?.disabled) throw forbidden('Your membership of this organization is disabled');
  if (m) {
    const current = m.role as Role | null;
    if (role === null || (current !== null && atLeast(current, role))) return;
  }
  await members.insertMember(c, orgId, userId, role);
}

async function applyEmailInvite(c: Queryable, inv: repo.EmailInviteRow, userId: string): Promise<void> {
  await grantMembership(c, inv.organization_id, userId, inv.role as Role | null);
  if (inv.sso) await members.setMemberSso(c, inv.organization_id, userId);
  // Teams and spaces that went away since the invite are skipped.
  for (const team of await repo.teamsInOrganization(c, inv.organization_id, inv.teams)) await ensureTeamMember(c, team, userId);
  const live = new Set(
    await repo.spacesInOrganization(
      c,
      inv.organization_id,
      inv.spaces.map((s) => s.space),
    ),
  );
  for (const s of inv.spaces) if (live.has(s.space)) await setUserGrant(c, 'space', s.space, userId, s.role);
}

// ---------------------------------------------------------------------------------------------
// By e-mail.

export interface InviteByEmailInput {
  emails: (string | { email: string; role: Role | null })[];
  role?: Role | null;
  sso?: boolean;
  /** Our extension: teams the invitees join, spaces they are granted (`{space, role}`). */
  teams?: string[];
  spaces?: { space: string; role: Role }[];
}

export async function inviteByEmail(app: AppContext, p: Principal, orgId: string, input: InviteByEmailInput) {
  const { org } = await requireOrg(app.db, p, orgId, 'admin');
  if (input.emails.length === 0) throw invalid('Invalid request: body.emails: at least one address is needed');
  if (input.emails.length > MAX_INVITES_PER_CALL) throw invalid(`Invalid request: body.emails: at most ${MAX_INVITES_PER_CALL} per call`);
  const defaultRole = input.role !== undefined ? input.role : ((org.default_role as Role | null) ?? 'read');
  const teams = [...new Set(input.teams ?? [])];
  const spaces = input.spaces ?? [];
  const inviter = await users.getUser(app.db, p.userId);
  const mails: Parameters<typeof inviteMail>[0][] = [];
  const invitedUsers: string[] = [];
  await withTx(app.db, async (c) => {
    const foundTeams = await repo.teamsInOrganization(c, orgId, teams);
    const missingTeam = teams.find((t) => !foundTeams.includes(t));
    if (missingTeam) throw invalid(`Invalid request: body.teams: no team "${missingTeam}" in this organization`);
    const foundSpaces = await repo.spacesInOrganization(
      c,
      orgId,
      spaces.map((s) => s.space),
    );
    const missingSpace = spaces.find((s) => !foundSpaces.includes(s.space));
    if (missingSpace) throw invalid(`Invalid request: body.spaces: no space "${missingSpace.space}" in this organization`);
    const seen = new Set<string>();
    for (const entry of input.emails) {
      const email = (typeof entry === 'string' ? entry : entry.email).trim();
      const role = typeof entry === 'string' ? defaultRole : entry.role;
      if (seen.has(email.toLowerCase())) continue;
      seen.add(email.toLowerCase());
      const user =
        (await users.findUserByEmail(c, email)) ??
        (await users.insertUser(c, { id: newId(), email, displayName: email.split('@')[0].slice(0, 64) || email }));
      const token = newInviteToken();
      const expiresAt = new Date(Date.now() + INVITE_TTL_DAYS * DAY_MS);
      const id = newId();
      await repo.insertEmailInvite(c, {
        id,
        orgId,
        email,
        userId: user.id,
        role,
        sso: input.sso ?? false,
        teams,
        spaces,
        tokenHash: sha256Hex(token),
        createdBy: p.userId,
        expiresAt,
      });
      invitedUsers.push(user.id);
      mails.push({
        to: email,
        organization: org.title,
        invitedBy: inviter?.display_name ?? 'An administrator',
        role,
        url: inviteUrl(app, token),
        expiresAt,
      });
    }
  });
  // After the commit, in the background: SMTP never holds the request.
  for (const m of mails) sendAfterCommit(app, inviteMail(m));
  return { users: invitedUsers, invited: invitedUsers.length, ...(input.sso ? { failedSSOEmails: [] as string[] } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Links.

async function presentLink(app: AppContext, row: repo.LinkInviteRow, extra: { token?: string } = {}) {
  let space;
  if (row.space_id) {
    const s = await getSpace(app.db, row.space_id, { includeDeleted: true });
    if (s) space = toSpace(app, s, spacePermissions('admin'));
  }
  return toInviteLink(row, { space, url: extra.token ? inviteUrl(app, extra.token) : undefined, token: extra.token });
}

function requireLinksEnabled(org: { invite_links: boolean }) {
  if (!org.invite_links) throw forbidden('Invite links are disabled in this organization (its inviteLinks setting)');
}

export async function createLink(
  app: AppContext,
  p: Principal,
  orgId: string,
  input: { role?: Role | null; level?: Role | null; space?: string; collection?: string },
) {
  const { org } = await requireOrg(app.db, p, orgId, 'admin');
  requireLinksEnabled(org);
  if (input.collection !== undefined)
    throw invalid(
      'Invalid request: body.collection: invite links to a collection are not supported; invite to the organization or a space',
    );
  if (input.space !== undefined) {
    const s = await getSpace(app.db, input.space, { counters: false });
    if (!s || s.organization_id !== orgId) throw invalid(`Invalid request: body.space: no space "${input.space}" in this organization`);
  }
  const token = newInviteToken();
  const row = await repo.insertLinkInvite(app.db, {
    id: newId(),
    orgId,
    role: (input.space !== undefined ? input.level : input.role) ?? null,
    spaceId: input.space ?? null,
    tokenHash: sha256Hex(token),
    createdBy: p.userId,
  });
  return presentLink(app, row, { token });
}

export async function listLinks(app: AppContext, p: Principal, orgId: string, q: { page?: string; limit?: number }) {
  await requireOrg(app.db, p, orgId, 'admin');
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(q.page, 2) as [string, string] | undefined;
  const { rows, count } = await repo.listLinkInvites(app.db, orgId, { limit, after });
  const page = buildPage(
    rows,
    limit,
    count,
    (r) => [r.sort_key, r.id],
    (r) => r,
  );
  return { ...page, items: await Promise.all(page.items.map((r) => presentLink(app, r))) };
}

async function loadLink(app: AppContext, p: Principal, orgId: string, inviteId: string) {
  await requireOrg(app.db, p, orgId, 'admin');
  const row = await repo.getLinkInvite(app.db, orgId, inviteId);
  if (!row) throw notFound(`Invite "${inviteId}" not found`);
  return row;
}

export async function getLink(app: AppContext, p: Principal, orgId: string, inviteId: string) {
  return presentLink(app, await loadLink(app, p, orgId, inviteId));
}

export async function updateLink(
  app: AppContext,
  p: Principal,
  orgId: string,
  inviteId: string,
  input: { role?: Role | null; level?: Role | null },
) {
  const row = await loadLink(app, p, orgId, inviteId);
  const role = row.space_id ? (input.level !== undefined ? input.level : input.role) : input.role !== undefined ? input.role : input.level;
  await repo.updateLinkInviteRole(app.db, orgId, inviteId, role ?? null);
  return getLink(app, p, orgId, inviteId);
}

/** 204 whether or not it existed (the seeds' status). */
export async function deleteLink(app: AppContext, p: Principal, orgId: string, inviteId: string) {
  await requireOrg(app.db, p, orgId, 'admin');
  await deleteLinkInvite(app.db, orgId, inviteId);
}

// ---------------------------------------------------------------------------------------------
// Joining.

/**
 * joinOrganizationWithInvite: the caller joins with an invite's token (a link's, or their own
 * e-mail invite's). 404 for a token of nothing (or of another organization), 410 once used or
 * expired, 403 when links are disabled, when the e-mail invite is someone else's, or when the
 * organization enforces SSO and the caller did not come through it.
 */
export async function join(app: AppContext, p: Principal, orgId: string, token: string, clientAddress: string | null) {
  const org = await getOrgForUser(app.db, orgId, p.userId);
  if (!org) throw notFound(`Organization "${orgId}" not found`);
  const hash = sha256Hex(token);
  const ssoRequired = org.sso && p.ssoOrgId !== orgId;
  const { actor, source } = actorOf(p);
  await withTx(app.db, async (c) => {
    await lockOrganization(c, orgId);
    const link = await repo.findLinkInviteByToken(c, hash);
    if (link && link.organization_id === orgId) {
      requireLinksEnabled(org);
      if (link.expires_at && link.expires_at.getTime() < Date.now()) throw gone('This invite link has expired');
      if (ssoRequired) throw forbidden(`Organization "${orgId}" requires single sign-on: sign in through it, then use the invite`);
      if (link.space_id) {
        await grantMembership(c, orgId, p.userId, null);
        await setUserGrant(c, 'space', link.space_id, p.userId, link.role ?? 'read');
      } else {
        await grantMembership(c, orgId, p.userId, link.role as Role | null);
      }
      await recordAudit(c, {
        organizationIds: [orgId],
        action: 'invites.accept',
        actor,
        source,
        target: { type: 'invite', id: link.id },
        clientAddress,
        payload: { kind: 'link', role: link.role, ...(link.space_id ? { space: link.space_id } : {}) },
      });
      return;
    }
    const inv = await repo.findEmailInviteByToken(c, hash, true);
    if (!inv || inv.organization_id !== orgId) throw notFound('Invite not found');
    if (inv.accepted_at) throw gone('This invite was already used');
    if (inv.expires_at.getTime() < Date.now()) throw gone('This invite has expired');
    if (inv.user_id !== p.userId) throw forbidden('This invite was sent to another address');
    if (ssoRequired) throw forbidden(`Organization "${orgId}" requires single sign-on: sign in through it to accept the invite`);
    await applyEmailInvite(c, inv, p.userId);
    await repo.markEmailInviteAccepted(c, inv.id);
    await recordAudit(c, {
      organizationIds: [orgId],
      action: 'invites.accept',
      actor,
      source,
      target: { type: 'invite', id: inv.id },
      clientAddress,
      payload: { kind: 'email', role: inv.role, teams: inv.teams, spaces: inv.spaces.map((s) => s.space) },
    });
  });
  return {};
}

/** The page an e-mail's link opens (GET: shows the invite, accepts nothing). */
export async function invitePageFor(app: AppContext, token: string): Promise<{ status: number; html: string; reason?: string }> {
  const inv = await repo.findEmailInviteByToken(app.db, sha256Hex(token));
  if (!inv) return { status: 404, html: inviteClosedPage('This invite does not exist.'), reason: 'This invite does not exist.' };
  if (inv.accepted_at)
    return { status: 410, html: inviteClosedPage('This invite was already used.'), reason: 'This invite was already used.' };
  if (inv.expires_at.getTime() < Date.now())
    return { status: 410, html: inviteClosedPage('This invite has expired.'), reason: 'This invite has expired.' };
  const org = await getOrgForUser(app.db, inv.organization_id, '');
  return { status: 200, html: invitePage(org?.title ?? 'the organization', inv.email, inv.role, `/invites/${token}`) };
}

export type AcceptOutcome = { kind: 'page'; status: number; html: string; reason?: string } | { kind: 'sso'; location: string };

/**
 * The invitee accepts in a browser (POST from the invite page): the link proves the address, so
 * this signs them in: the invite is applied and a new API token is shown once. In an
 * organization that enforces SSO, the invitee is sent to its sign-in page instead (the sign-in
 * applies the invite).
 */
export async function acceptInBrowser(app: AppContext, token: string, clientAddress: string | null): Promise<AcceptOutcome> {
  const hash = sha256Hex(token);
  const probe = await repo.findEmailInviteByToken(app.db, hash);
  if (!probe)
    return { kind: 'page', status: 404, html: inviteClosedPage('This invite does not exist.'), reason: 'This invite does not exist.' };
  const org = await getOrgForUser(app.db, probe.organization_id, '');
  if (org?.sso) return { kind: 'sso', location: `/sso/orgs/${probe.organization_id}` };
  const result = await withTx(app.db, async (c) => {
    await lockOrganization(c, probe.organization_id);
    const inv = await repo.findEmailInviteByToken(c, hash, true);
    if (!inv || inv.accepted_at) return { status: 410, reason: 'This invite was already used.' };
    if (inv.expires_at.getTime() < Date.now()) return { status: 410, reason: 'This invite has expired.' };
    await applyEmailInvite(c, inv, inv.user_id);
    await repo.markEmailInviteAccepted(c, inv.id);
    const apiToken = newToken();
    const tokenId = newId();
    await insertToken(c, { id: tokenId, userId: inv.user_id, hash: sha256Hex(apiToken), label: 'invite' });
    const user = (await users.getUser(c, inv.user_id))!;
    const actor = { type: 'user' as const, id: user.id };
    await recordAudit(c, {
      organizationIds: [inv.organization_id],
      action: 'invites.accept',
      actor,
      source: 'ui',
      target: { type: 'invite', id: inv.id },
      clientAddress,
      payload: { kind: 'email', role: inv.role, teams: inv.teams, spaces: inv.spaces.map((s) => s.space) },
    });
    await recordAudit(c, {
      organizationIds: await organizationsOfUser(c, user.id),
      action: 'tokens.create',
      actor,
      source: 'ui',
      target: { type: 'api-token', id: tokenId, label: 'invite' },
      clientAddress,
      payload: { reason: 'invite' },
    });
    return { status: 200, html: tokenPage(user.display_name, user.email, apiToken) };
  });
  if ('reason' in result) return { kind: 'page', status: result.status, html: inviteClosedPage(result.reason!), reason: result.reason };
  return { kind: 'page', status: 200, html: result.html! };
}

/**
 * At an SSO sign-in (inside its transaction): the open e-mail invites of the signed-in address to
 * that organization are applied and used up. Returns whether any was (the provider's default role
 * is then not applied).
 */
export async function applyInvitesAtSignIn(c: Queryable, orgId: string, userId: string, email: string): Promise<boolean> {
  const open = await repo.openEmailInvites(c, orgId, email);
  for (const inv of open) {
    await applyEmailInvite(c, inv, userId);
    await repo.markEmailInviteAccepted(c, inv.id);
  }
  return open.length > 0;
}
