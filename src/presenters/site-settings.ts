// Site redirects, external links and custom fonts as the API returns them (issue 29).
import type { SiteRedirectRow } from '../db/repos/site-redirects.js';
import type { ExternalLinkRow } from '../db/repos/site-external-links.js';
import type { CustomFontRow } from '../db/repos/custom-fonts.js';

export function toSiteRedirect(r: SiteRedirectRow) {
  return {
    object: 'site-redirect' as const,
    id: r.id,
    source: r.source,
    draft: r.draft,
    captureWildcard: r.capture_wildcard,
    permanent: r.permanent,
    destination: r.destination,
    createdAt: r.created_at.toISOString(),
    ...(r.updated_at ? { updatedAt: r.updated_at.toISOString() } : {}),
  };
}

export function toSiteExternalLink(l: ExternalLinkRow) {
  return {
    object: 'site-external-link' as const,
    id: l.id,
    title: l.title,
    ...(l.localized_title ? { localizedTitle: l.localized_title } : {}),
    ...(l.description !== null ? { description: l.description } : {}),
    ...(l.localized_description ? { localizedDescription: l.localized_description } : {}),
    ...(l.icon ? { icon: l.icon } : {}),
    url: l.url,
    ...(l.section_group_id ? { sectionGroup: l.section_group_id } : {}),
    draft: l.draft,
    ...(l.condition ? { condition: l.condition } : {}),
  };
}

/** Where a font face's file is served to anyone (`/fonts/...`); sites serve it on their own base too. */
export function fontFileUrl(publicUrl: string, fontId: string, weight: number): string {
  return `${publicUrl}/fonts/${fontId}/${weight}`;
}

export function toCustomFont(publicUrl: string, f: CustomFontRow, canEdit: boolean) {
  return {
    id: f.id,
    custom: true,
    fontFamily: f.font_family,
    fontFaces: [...f.faces]
      .sort((a, b) => a.weight - b.weight)
      .map((face) => ({
        weight: face.weight,
        sources: [
          {
            url: fontFileUrl(publicUrl, f.id, face.weight),
            ...(face.format === 'woff2' || face.format === 'woff' ? { format: face.format } : {}),
          },
        ],
      })),
    permissions: { edit: canEdit },
  };
}
