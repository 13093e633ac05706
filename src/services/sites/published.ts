// The published view of a space (`urls.published`): server-rendered HTML of its current revision,
// without a token, for visibility `public` and `unlisted` (and `share-link` with its key). Private,
// in-collection and visitor-auth spaces are a 404 here. Also the `/app/...` URLs the API returns:
// there is no web application in this build, so they redirect to the published page when there is
// one, else to the API resource.
import type { AppContext } from '../../context.js';
import { notFound } from '../../core/errors.js';
import { getSpace, type SpaceRow } from '../../db/repos/spaces.js';
import { revisionSnapshot } from '../../content/commit.js';
import type { Snapshot, TreePage } from '../../content/snapshot.js';
import { BLOCK_CSS, escapeHtml } from '../../render/html.js';
import { renderPageBody } from '../page-body.js';
import { openSiteUrlOfSpacePage } from './reader-lists.js';

function publishedSpace(s: SpaceRow, shareKey: string | undefined): boolean {
  if (s.visibility === 'public' || s.visibility === 'unlisted') return true;
  return s.visibility === 'share-link' && !!shareKey && shareKey === s.share_key;
}

/** A page of a published space as HTML; `indexable` is false unless search engines may index the space. */
export interface PublishedPage {
  html: string;
  indexable: boolean;
  /** The path is a redirect of the space (git sync's `.gitbook.yaml`), or the page is read on a site: where it leads instead. */
  redirect?: string;
  /** The redirect may change (the site's structure can): 302 rather than 301. */
  temporary?: boolean;
}

/** The page a redirect of the space leads to: its target file is a page's git path (under any docs root). */
function redirectTarget(snapshot: Snapshot, path: string): TreePage | undefined {
  const redirects = snapshot.root.redirects;
  if (!redirects) return undefined;
  const target = redirects[path] ?? redirects[path.replace(/\.md$/i, '')] ?? redirects[`${path}.md`];
  if (!target) return undefined;
  const file = target.replace(/^\.?\/+/, '');
  return snapshot.ordered.find((p) => {
    const g = p.node.git?.path;
    return p.node.type === 'document' && !!g && (g === file || g.endsWith(`/${file}`));
  });
}

export async function renderPublished(app: AppContext, spaceId: string, pagePath: string, shareKey?: string): Promise<PublishedPage> {
  const space = await getSpace(app.db, spaceId);
  if (!space || !publishedSpace(space, shareKey)) throw notFound('Not found');
  const { snapshot } = await revisionSnapshot(app.db, spaceId, space.revision_id);
  const path = pagePath.replace(/^\/+|\/+$/g, '');
  const page = path ? snapshot.byPath.get(path) : snapshot.ordered.find((p) => p.node.type === 'document' || p.node.type === 'computed');
  const base = `${app.config.publicUrl}/s/${spaceId}`;
  const suffix = space.visibility === 'share-link' ? `?share=${encodeURIComponent(shareKey!)}` : '';
  const pageUrl = (p: TreePage, anchor?: string) =>
    `${base}/${p.path.split('/').map(encodeURIComponent).join('/')}${suffix}${anchor ? `#${anchor}` : ''}`;
  if (!page && path) {
    const moved = redirectTarget(snapshot, path);
    if (moved) return { html: '', indexable: false, redirect: pageUrl(moved) };
  }
  if (!page || page.node.type === 'group' || page.node.type === 'link') throw notFound('Not found');
  // A space published through a site open to anyone is read there: the per-space view redirects.
  if (space.visibility === 'public' || space.visibility === 'unlisted') {
    const onSite = await openSiteUrlOfSpacePage(app, spaceId, page.path);
    if (onSite) return { html: '', indexable: false, redirect: onSite, temporary: true };
  }
  // No visitor here: `{% if %}` blocks are evaluated with empty claims.
  const { html: body } = await renderPageBody(app, space.organization_id, snapshot, page, pageUrl, {});
  const nav = (list: TreePage[]): string =>
    list.length
      ? `<ul>${list
          .filter((p) => !p.node.hidden)
          .map((p) => {
            const label = escapeHtml(p.node.title);
            const link =
              p.node.type === 'group'
                ? `<strong>${label}</strong>`
                : `<a href="${escapeHtml(pageUrl(p))}"${p === page ? ' aria-current="page"' : ''}>${label}</a>`;
            return `<li>${link}${nav(p.children)}</li>`;
          })
          .join('')}</ul>`
      : '';
  const noindex = space.visibility === 'public' && !page.node.noRobotsIndex ? '' : '<meta name="robots" content="noindex">';
  const html = `<!doctype html><html lang="${escapeHtml(space.language ?? 'en')}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">${noindex}
<title>${escapeHtml(page.node.title)} · ${escapeHtml(space.title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:0;display:flex;line-height:1.55;color:#1d1d1f}nav{width:17rem;padding:1.5rem;border-right:1px solid #e5e5e5;min-height:100vh;box-sizing:border-box}nav ul{list-style:none;padding-left:.9rem;margin:.2rem 0}nav>ul{padding:0}nav a{color:inherit;text-decoration:none}nav a[aria-current]{font-weight:600;color:#0a58ca}main{padding:2rem 3rem;max-width:50rem}pre{background:#f6f8fa;padding:1rem;overflow:auto;white-space:pre-wrap}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.3rem .6rem}img{max-width:100%}${BLOCK_CSS}</style>
</head><body><nav><p><strong>${escapeHtml(space.emoji ? `${space.emoji} ` : '')}${escapeHtml(space.title)}</strong></p>${nav(snapshot.pages)}</nav>
<main><h1>${escapeHtml(page.node.title)}</h1>${page.node.description ? `<p>${escapeHtml(page.node.description)}</p>` : ''}${body}</main></body></html>`;
  return { html, indexable: space.visibility === 'public' };
}

/** Where `/app/...` URLs lead: to the published page when there is one, else to the API resource. */
export async function appRedirect(app: AppContext, rest: string): Promise<string> {
  const parts = rest.split('/').filter(Boolean);
  const api = `${app.config.publicUrl}/v1`;
  let location: string | null = null;
  if (parts[0] === 'o' && parts[1]) {
    if (parts[2] === 'c' && parts[3]) location = `${api}/collections/${parts[3]}`;
    else if (parts[2] === 'openapi' && parts[3]) location = `${api}/orgs/${parts[1]}/openapi/${parts[3]}`;
    else location = `${api}/orgs/${parts[1]}`;
  } else if (parts[0] === 's' && parts[1]) {
    const space = await getSpace(app.db, parts[1]);
    if (!space) throw notFound('Not found');
    if (parts[2] === 'page' && parts[3]) {
      const published = publishedSpace(space, undefined);
      if (published) {
        const { snapshot } = await revisionSnapshot(app.db, space.id, space.revision_id);
        const page = snapshot.byId.get(parts[3]);
        if (page) location = `${app.config.publicUrl}/s/${space.id}/${page.path}`;
      }
      location ??= `${api}/spaces/${space.id}/content/page/${parts[3]}`;
    } else if (parts[2] === 'change-requests' && parts[3]) location = `${api}/spaces/${space.id}/change-requests/${parts[3]}`;
    else if (parts[2] === 'revisions' && parts[3]) location = `${api}/spaces/${space.id}/content`;
    else location = publishedSpace(space, undefined) ? `${app.config.publicUrl}/s/${space.id}` : `${api}/spaces/${space.id}`;
  }
  if (!location) throw notFound('Not found');
  return location;
}
