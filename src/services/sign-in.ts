// Sign-in by e-mail (issue 28 item 5): someone gives their address; if it is a user's, a
// single-use link valid SIGN_IN_LINK_MINUTES goes to it; opening it and pressing the button shows a
// new API token once. The answer is the same whether or not the address is known (nothing to
// learn about who has an account), at most SIGN_IN_LINKS_PER_WINDOW links go to one address per
// window, and the request never waits for SMTP. An organization that enforces SSO still refuses
// the token this gives (only its SSO's credentials open it).
import type { AppContext } from '../context.js';
import * as repo from '../db/repos/invites.js';
import * as users from '../db/repos/users.js';
import { insertToken } from '../db/repos/tokens.js';
import { organizationsOfUser } from '../db/repos/audit.js';
import { withTx } from '../db/pool.js';
import { signInMail } from '../mail/templates.js';
import { inviteClosedPage } from '../sso/invite-pages.js';
import { page, tokenPage } from '../sso/pages.js';
import { newId, newToken, sha256Hex } from '../util/ids.js';
import { randomBytes } from 'node:crypto';
import { sendAfterCommit } from './mail.js';
import { recordAudit } from './audit.js';

export const SIGN_IN_LINK_MINUTES = 15;
export const SIGN_IN_LINKS_PER_WINDOW = 5;

/** Ask for a sign-in link; always the same answer. */
export async function requestSignInLink(app: AppContext, email: string): Promise<{ sent: true }> {
  const user = await users.findUserByEmail(app.db, email);
  if (user) {
    const windowStart = new Date(Date.now() - SIGN_IN_LINK_MINUTES * 60_000);
    if ((await repo.countRecentSignInLinks(app.db, user.id, windowStart)) < SIGN_IN_LINKS_PER_WINDOW) {
      await repo.deleteOldSignInLinks(app.db);
      const token = `sil_${randomBytes(32).toString('base64url')}`;
      const expiresAt = new Date(Date.now() + SIGN_IN_LINK_MINUTES * 60_000);
      await repo.insertSignInLink(app.db, { tokenHash: sha256Hex(token), userId: user.id, expiresAt });
      sendAfterCommit(app, signInMail({ to: user.email, url: `${app.config.publicUrl}/sign-in/${token}`, expiresAt }));
    }
  }
  return { sent: true };
}

/** The page the link opens (GET uses nothing up: mail scanners open links). */
export async function signInPage(app: AppContext, token: string): Promise<{ status: number; html: string; reason?: string }> {
  const link = await repo.findSignInLink(app.db, sha256Hex(token));
  if (!link)
    return { status: 404, html: inviteClosedPage('This sign-in link does not exist.'), reason: 'This sign-in link does not exist.' };
  if (link.used_at || link.expires_at.getTime() < Date.now()) {
    return {
      status: 410,
      html: inviteClosedPage('This sign-in link was already used or has expired. Ask for a new one.'),
      reason: 'This sign-in link was already used or has expired. Ask for a new one.',
    };
  }
  return {
    status: 200,
    html: page(
      'Sign in',
      `<form method="post" action="/sign-in/${token}"><button type="submit">Sign in and show a new API token</button></form>`,
    ),
  };
}

/** Use the link: a new API token, shown once. */
export async function completeSignIn(
  app: AppContext,
  token: string,
  clientAddress: string | null,
): Promise<{ status: number; html: string; reason?: string }> {
  return withTx(app.db, async (c) => {
    const userId = await repo.useSignInLink(c, sha256Hex(token));
    if (!userId)
      return {
        status: 410,
        html: inviteClosedPage('This sign-in link was already used or has expired. Ask for a new one.'),
        reason: 'This sign-in link was already used or has expired. Ask for a new one.',
      };
    const user = (await users.getUser(c, userId))!;
    const apiToken = newToken();
    const tokenId = newId();
    await insertToken(c, { id: tokenId, userId, hash: sha256Hex(apiToken), label: 'e-mail sign-in' });
    await recordAudit(c, {
      organizationIds: await organizationsOfUser(c, userId),
      action: 'tokens.create',
      actor: { type: 'user', id: userId },
      source: 'ui',
      target: { type: 'api-token', id: tokenId, label: 'e-mail sign-in' },
      clientAddress,
      payload: { reason: 'e-mail sign-in' },
    });
    return { status: 200, html: tokenPage(user.display_name, user.email, apiToken) };
  });
}
