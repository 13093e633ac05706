// The platform's e-mails, each with a plain-text and an HTML body built from the same parts.
import type { MailMessage } from './transport.js';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** One call to action: a sentence, a link, and a closing note. */
function message(to: string, subject: string, lines: string[], action: { label: string; url: string }, note: string): MailMessage {
  const text = [...lines, '', `${action.label}: ${action.url}`, '', note, ''].join('\n');
  const html =
    `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1f2328">` +
    lines.map((l) => `<p>${esc(l)}</p>`).join('') +
    `<p><a href="${esc(action.url)}" style="display:inline-block;padding:8px 16px;background:#1f6feb;color:#fff;border-radius:6px;text-decoration:none">${esc(action.label)}</a></p>` +
    `<p style="font-size:13px;color:#59636e">${esc(note)}<br>${esc(action.url)}</p></body></html>`;
  return { to, subject, text, html };
}

export function inviteMail(i: { to: string; organization: string; invitedBy: string; role: string | null; url: string; expiresAt: Date }) {
  return message(
    i.to,
    `${i.invitedBy} invited you to ${i.organization}`,
    [`${i.invitedBy} invited you to join the organization "${i.organization}" as ${i.role ?? 'guest'}.`],
    { label: 'Accept the invite', url: i.url },
    `This link is for you alone, works once and expires on ${i.expiresAt.toUTCString()}.`,
  );
}

export function reviewRequestMail(r: { to: string; requestedBy: string; space: string; changeRequest: string; url: string }) {
  return message(
    r.to,
    `Review requested: ${r.changeRequest}`,
    [`${r.requestedBy} asked you to review the change request "${r.changeRequest}" in "${r.space}".`],
    { label: 'Open the change request', url: r.url },
    'You receive this because a reviewer was requested.',
  );
}

export function signInMail(s: { to: string; url: string; expiresAt: Date }) {
  return message(
    s.to,
    'Your sign-in link',
    ['Someone (hopefully you) asked to sign in with this address.'],
    { label: 'Sign in', url: s.url },
    `The link works once and expires on ${s.expiresAt.toUTCString()}. If you did not ask for it, ignore this message.`,
  );
}
