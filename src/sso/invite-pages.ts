// The token-free pages an invitee's e-mail link opens: the invite (with a button: a GET never
// accepts, so that mail scanners opening links use nothing up), and what follows.
import { page } from './pages.js';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function invitePage(orgTitle: string, email: string, role: string | null, actionPath: string): string {
  return page(
    `Join ${orgTitle}`,
    `<p>You were invited to join "${esc(orgTitle)}" as ${esc(role ?? 'guest')}, with the address ${esc(email)}.</p>
<form method="post" action="${esc(actionPath)}"><button type="submit">Accept the invite and sign in</button></form>`,
  );
}

export function inviteClosedPage(reason: string): string {
  return page('Invite not available', `<p>${esc(reason)}</p><p>Ask the person who invited you for a new invite.</p>`);
}
