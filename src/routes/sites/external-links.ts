// External links of a site (issue 29 item 2) and duplicateSiteSpace.
import { z } from 'zod';
import { route, created, noContent, ok } from '../../http/route.js';
import type { RouteDef } from '../../http/route.js';
import { entityId } from '../../http/validate.js';
import * as links from '../../services/sites/external-links.js';
import { duplicateSiteSpace } from '../../services/sites/duplicate.js';
import { minimalOr, siteParams } from './sites.js';

const SITE = '/v1/orgs/:organizationId/sites/:siteId';
/** Text stored as it is: PostgreSQL text holds no NUL character. */
const text = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[^\0]*$/, { message: 'must not contain NUL characters' });
const title = text(128).min(2);
const localized = (max: number) =>
  z.record(z.string().max(16), text(max)).refine((r) => Object.keys(r).length <= 50, 'at most 50 languages');
const fields = {
  localizedTitle: localized(128),
  description: text(256).nullable(),
  localizedDescription: localized(256).nullable(),
  icon: text(50).nullable(),
  url: text(2048).regex(/^[^\x01-\x1f\x7f]*$/, { message: 'must not contain control characters' }),
  draft: z.boolean(),
  condition: text(1024).nullable(),
};
const linkParams = { ...siteParams, siteExternalLinkId: entityId };

export const siteExternalLinkRoutes: RouteDef[] = [
  route({
    method: 'POST',
    path: `${SITE}/external-links`,
    params: siteParams,
    body: z
      .object({ title, ...fields, parent: entityId })
      .partial()
      .required({ title: true, url: true })
      .strict(),
    handler: async ({ app, principal, params, body }) => {
      const link = await links.addExternalLink(app, principal, params.organizationId, params.siteId, body);
      return created(link, {
        location: `${app.config.publicUrl}/v1/orgs/${params.organizationId}/sites/${params.siteId}/external-links/${link.id}`,
      });
    },
  }),
  route({
    method: 'PATCH',
    path: `${SITE}/external-links/:siteExternalLinkId`,
    params: linkParams,
    body: z
      .object({ title, ...fields, localizedTitle: fields.localizedTitle.nullable(), parent: entityId.nullable() })
      .partial()
      .strict(),
    handler: async ({ app, principal, params, body, req }) => {
      const link = await links.updateExternalLink(app, principal, params.organizationId, params.siteId, params.siteExternalLinkId, body);
      return minimalOr(req, async () => ok(link));
    },
  }),
  route({
    method: 'DELETE',
    path: `${SITE}/external-links/:siteExternalLinkId`,
    params: linkParams,
    handler: async ({ app, principal, params }) => {
      const existed = await links.deleteExternalLink(app, principal, params.organizationId, params.siteId, params.siteExternalLinkId);
      return existed ? { status: 205 } : noContent();
    },
  }),
  route({
    method: 'POST',
    path: `${SITE}/site-spaces/:siteSpaceId/duplicate`,
    params: { ...siteParams, siteSpaceId: entityId },
    body: z.object({ draft: z.boolean().optional() }).strict(),
    bodyRequired: false,
    handler: async ({ app, principal, params }) => {
      const ss: any = await duplicateSiteSpace(app, principal, params.organizationId, params.siteId, params.siteSpaceId);
      return created(ss, {
        location: `${app.config.publicUrl}/v1/orgs/${params.organizationId}/sites/${params.siteId}/site-spaces/${ss.id}`,
      });
    },
  }),
];
