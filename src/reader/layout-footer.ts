// The site footer: logo (light/dark), link groups, social accounts, privacy policy, copyright.
// Every value comes from the customization and is escaped; social profile URLs are built from the
// handle (each path segment encoded), never taken as given.
import { escapeHtml as esc } from '../render/html.js';

export interface FooterChrome {
  base: string;
  title: string;
  settings: Record<string, any>;
}

const PLATFORMS: Record<string, { label: string; url: (h: string) => string | null }> = {
  twitter: { label: 'X (Twitter)', url: (h) => `https://x.com/${seg(h)}` },
  instagram: { label: 'Instagram', url: (h) => `https://www.instagram.com/${seg(h)}` },
  facebook: { label: 'Facebook', url: (h) => `https://www.facebook.com/${seg(h)}` },
  // `company/acme`, `in/jane` or a bare company name.
  linkedin: { label: 'LinkedIn', url: (h) => `https://www.linkedin.com/${h.includes('/') ? segs(h) : `company/${seg(h)}`}` },
  github: { label: 'GitHub', url: (h) => `https://github.com/${seg(h)}` },
  // An invite code.
  discord: { label: 'Discord', url: (h) => `https://discord.gg/${seg(h)}` },
  // A workspace name.
  slack: { label: 'Slack', url: (h) => (/^[a-z0-9][a-z0-9-]{0,62}$/i.test(h) ? `https://${h.toLowerCase()}.slack.com` : null) },
  youtube: { label: 'YouTube', url: (h) => `https://www.youtube.com/@${seg(h)}` },
  tiktok: { label: 'TikTok', url: (h) => `https://www.tiktok.com/@${seg(h)}` },
  // `r/name`, `u/name` or a bare subreddit.
  reddit: { label: 'Reddit', url: (h) => `https://www.reddit.com/${/^[ru]\//.test(h) ? segs(h) : `r/${seg(h)}`}` },
  bluesky: { label: 'Bluesky', url: (h) => `https://bsky.app/profile/${seg(h)}` },
  // `user@instance.example`: the profile lives on the instance.
  mastodon: {
    label: 'Mastodon',
    url: (h) => {
      const m = /^([\w.-]{1,64})@([a-z0-9.-]{1,253}\.[a-z]{2,63})$/i.exec(h);
      return m ? `https://${m[2].toLowerCase()}/@${seg(m[1])}` : null;
    },
  },
  threads: { label: 'Threads', url: (h) => `https://www.threads.net/@${seg(h)}` },
  medium: { label: 'Medium', url: (h) => `https://medium.com/@${seg(h)}` },
};

const seg = (s: string) => encodeURIComponent(s);
const segs = (s: string) => s.split('/').filter(Boolean).map(seg).join('/');

/** The profile link of a social account, or null when its platform or handle cannot make one. */
export function socialLink(account: any): { label: string; href: string; handle: string } | null {
  const platform = PLATFORMS[String(account?.platform)];
  if (!platform || typeof account.handle !== 'string') return null;
  const handle = account.handle.trim().replace(/^@/, '');
  if (!handle) return null;
  const href = platform.url(handle);
  return href ? { label: platform.label, href, handle } : null;
}

/** The social accounts shown in the header or the footer (`display`), as a list of profile links. */
export function socialList(c: FooterChrome, where: 'header' | 'footer'): string {
  const items = ((Array.isArray(c.settings.socialAccounts) ? c.settings.socialAccounts : []) as any[])
    .filter((a) => (where === 'footer' ? a?.display?.footer !== false : a?.display?.header === true))
    .map(socialLink)
    .filter((l) => l !== null)
    .map(
      (l) =>
        `<li><a href="${esc(l.href)}" rel="me noopener" aria-label="${esc(`${c.title} on ${l.label} (${l.handle})`)}"${
          c.settings.externalLinks?.target === 'blank' ? ' target="_blank"' : ''
        }>${esc(l.label)}</a></li>`,
    )
    .join('');
  return items ? `<ul class="social" aria-label="Social accounts">${items}</ul>` : '';
}

/** `twitter:site` for an X (Twitter) account of the customization. */
export function socialMeta(settings: Record<string, any>): string {
  const x = ((Array.isArray(settings.socialAccounts) ? settings.socialAccounts : []) as any[]).find((a) => a?.platform === 'twitter');
  const link = x ? socialLink(x) : null;
  return link ? `<meta name="twitter:site" content="@${esc(link.handle)}">\n` : '';
}

function externalAttrs(href: string, settings: Record<string, any>, base: string): string {
  if (href.startsWith(base)) return '';
  return settings.externalLinks?.target === 'blank' ? ' target="_blank" rel="noopener noreferrer"' : '';
}

export function footerHtml(c: FooterChrome): string {
  const s = c.settings;
  const f = s.footer ?? {};
  const logos = f.logo ?? {};
  const logo =
    typeof logos.light === 'string'
      ? `<a class="footer-logo" href="${esc(c.base)}/">${
          typeof logos.dark === 'string' && logos.dark !== logos.light
            ? `<img class="logo-light" src="${esc(logos.light)}" alt="${esc(c.title)}"><img class="logo-dark" src="${esc(logos.dark)}" alt="${esc(c.title)}">`
            : `<img src="${esc(logos.light)}" alt="${esc(c.title)}">`
        }</a>`
      : '';
  const groups = ((f.groups ?? []) as any[])
    .map(
      (g) =>
        `<div><strong>${esc(g.title)}</strong><ul>${((g.links ?? []) as any[])
          .map((l) => {
            const href = l.to?.kind === 'url' ? String(l.to.url) : null;
            return `<li>${href ? `<a href="${esc(href)}"${externalAttrs(href, s, c.base)}>${esc(l.title)}</a>` : esc(l.title)}</li>`;
          })
          .join('')}</ul></div>`,
    )
    .join('');
  const social = socialList(c, 'footer');
  const privacy =
    typeof s.privacyPolicy?.url === 'string'
      ? `<a href="${esc(s.privacyPolicy.url)}"${externalAttrs(s.privacyPolicy.url, s, c.base)}>Privacy policy</a>`
      : '';
  const legal = `<div class="legal">${social}<p>${esc(f.copyright ?? `© ${c.title}`)}${privacy ? ` · ${privacy}` : ''}</p></div>`;
  return `<footer class="site">${logo}${groups}${legal}</footer>`;
}
