import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import { getUser } from '../db/repos/users.js';
import { notFound } from '../core/errors.js';
import { toUser } from '../presenters/users.js';

/** The caller (getAuthenticatedUser), whether authenticated by a bearer token or an SSO session. */
export async function currentUser(app: AppContext, p: Principal) {
  const user = await getUser(app.db, p.userId);
  if (!user) throw notFound('User not found');
  return toUser(app, user);
}
