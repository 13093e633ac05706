import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { getUser, shareAnOrganization, updateUserProfile } from '../db/repos/users.js';
import { organizationsOfUser } from '../db/repos/audit.js';
import { forbidden, notFound } from '../core/errors.js';
import { toUser } from '../presenters/users.js';
import { actorOf, recordAuditAfter } from './audit.js';

/** The caller (getAuthenticatedUser), whether authenticated by a bearer token or an SSO session. */
export async function currentUser(app: AppContext, p: Principal) {
  const user = await getUser(app.db, p.userId);
  if (!user) throw notFound('User not found');
  return toUser(app, user);
}

/** getUserById: oneself, or someone who shares an organization with the caller (404 otherwise: who exists is not told). */
export async function getUserById(app: AppContext, p: Principal, userId: string) {
  const user = await getUser(app.db, userId);
  if (!user || (userId !== p.userId && !(await shareAnOrganization(app.db, p.userId, userId)))) {
    throw notFound(`User "${userId}" not found`);
  }
  return toUser(app, user);
}

/** updateUserById: one's own profile only (403 for anyone else's). Recorded in each of the user's organizations. */
export async function updateUserById(
  app: AppContext,
  p: Principal,
  userId: string,
  patch: { displayName?: string; photoURL?: string },
  clientAddress: string | null,
) {
  if (userId !== p.userId) {
    if (!(await getUser(app.db, userId))) throw notFound(`User "${userId}" not found`);
    throw forbidden('Only the user themself can change their profile');
  }
  const user = await updateUserProfile(app.db, userId, patch);
  if (!user) throw notFound(`User "${userId}" not found`);
  const { actor, source } = actorOf(p);
  await recordAuditAfter(app, {
    organizationIds: await organizationsOfUser(app.db, userId),
    action: 'users.update',
    actor,
    source,
    target: { type: 'user', id: userId, label: user.display_name },
    clientAddress,
    payload: { fields: Object.keys(patch).sort() },
  });
  return toUser(app, user);
}
