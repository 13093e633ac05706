// Users, organizations and tokens as the CLI, the first-start bootstrap and the tests create them.
import type { Db, Queryable } from '../db/pool.js';
import { withTx } from '../db/pool.js';
import { newId, newToken, sha256Hex } from '../util/ids.js';
import * as users from '../db/repos/users.js';
import * as orgs from '../db/repos/organizations.js';
import * as members from '../db/repos/members.js';
import * as tokens from '../db/repos/tokens.js';
import type { Principal } from '../auth/principal.js';
import type { Role } from '../core/roles.js';

export async function createUser(db: Queryable, u: { email: string; displayName?: string; photoURL?: string; operator?: boolean }) {
  return users.insertUser(db, {
    id: newId(),
    email: u.email,
    displayName: u.displayName ?? u.email.split('@')[0],
    photoURL: u.photoURL,
    operator: u.operator,
  });
}

/** Create an organization; `adminUserId`, when given, becomes its first admin. */
export async function createOrganization(db: Db, o: { title: string; adminUserId?: string }) {
  return withTx(db, async (c) => {
    const org = await orgs.insertOrg(c, { id: newId(), title: o.title });
    if (o.adminUserId) await members.insertMember(c, org.id, o.adminUserId, 'admin');
    return org;
  });
}

export async function addMember(db: Queryable, orgId: string, userId: string, role: Role | null) {
  await members.insertMember(db, orgId, userId, role);
}

/** Issue a bearer token for a user. The clear token is returned once; only its SHA-256 is stored. */
export async function createToken(db: Queryable, userId: string, label?: string): Promise<string> {
  return (await issueToken(db, userId, label)).token;
}

/** `createToken`, also returning the token's id (its handle in the audit log). */
export async function issueToken(db: Queryable, userId: string, label?: string): Promise<{ token: string; id: string }> {
  const token = newToken();
  const id = newId();
  await tokens.insertToken(db, { id, userId, hash: sha256Hex(token), label });
  return { token, id };
}

export async function authenticate(db: Queryable, token: string): Promise<Principal | null> {
  if (!token || token.length > 512) return null;
  const found = await tokens.findTokenByHash(db, sha256Hex(token));
  return found ? { userId: found.userId, tokenId: found.id, ssoOrgId: found.ssoOrgId } : null;
}

/** What the first start created: the token is returned once, to be printed once. */
export interface Bootstrapped {
  token: string;
  orgId: string;
  orgTitle: string;
  userId: string;
  email: string;
}

/**
 * On first start with an empty database: an organization, an admin user and a token. Runs under
 * an advisory lock so that several processes starting together bootstrap once. Returns the token
 * (to be printed once) or null when the database already had users.
 */
export async function bootstrap(db: Db): Promise<Bootstrapped | null> {
  return withTx(db, async (c) => {
    await users.lockFirstUser(c);
    if ((await tokens.countUsers(c)) > 0) return null;
    const user = await users.insertUser(c, { id: newId(), email: 'admin@localhost', displayName: 'Administrator', operator: true });
    const org = await orgs.insertOrg(c, { id: newId(), title: 'Default organization' });
    await members.insertMember(c, org.id, user.id, 'admin');
    const token = await createToken(c, user.id, 'bootstrap');
    return { token, orgId: org.id, orgTitle: org.title, userId: user.id, email: user.email };
  });
}

/** The e-mail address a new admin token is issued for (`npm run cli -- token create`): the first operator's. */
export async function operatorEmail(db: Queryable): Promise<string | null> {
  return (await users.oldestOperator(db))?.email ?? null;
}
