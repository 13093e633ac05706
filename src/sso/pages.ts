// The few HTML pages of the single sign-on flow. Every dynamic value is escaped here.
const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESC[c]);

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<meta name="referrer" content="no-referrer"><title>${esc(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}code{word-break:break-all;background:#f3f3f3;padding:.2rem .4rem}</style>
</head><body><h1>${esc(title)}</h1>${body}</body></html>`;
}

export function loginPage(orgTitle: string, providers: { label: string; startURL: string }[]): string {
  const list = providers.length
    ? `<ul>${providers.map((p) => `<li><a href="${esc(p.startURL)}">Sign in with ${esc(p.label)}</a></li>`).join('')}</ul>`
    : '<p>This organization has no single sign-on provider yet.</p>';
  return page(`Sign in to ${orgTitle}`, list);
}

export function tokenPage(name: string, email: string, token: string | null): string {
  const tokenPart = token
    ? `<p>Your new API token (shown once; keep it safe). Send it as <code>Authorization: Bearer &lt;token&gt;</code>:</p>
<p><code id="token">${esc(token)}</code></p>`
    : '<p>The API token of this sign-in was already shown. Sign in again for a new one.</p>';
  return page('Signed in', `<p id="who">Signed in as ${esc(name)} (${esc(email)}).</p>${tokenPart}`);
}

/** What a failed login shows: nothing about why (the reason goes to the log). */
export function failurePage(): string {
  return page('Sign-in failed', '<p>The sign-in could not be completed. Try again, or ask your administrator.</p>');
}
