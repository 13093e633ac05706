import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { route, ok, created, noContent } from '../../http/route.js';
import type { Reply, RouteDef } from '../../http/route.js';
import { entityId, roleSchema, listQuery } from '../../http/validate.js';
import * as service from '../../services/sites/sites.js';
import * as settings from '../../services/sites/settings.js';
import * as links from '../../services/sites/share-links.js';
import { customizationInput, customizationOverrideInput } from '../../sites/customization.js';

export const siteParams = { organizationId: entityId, siteId: entityId };
const SITE = '/v1/orgs/:organizationId/sites/:siteId';

// Value sets and limits of the public description (SiteType, SiteVisibility, SiteTitle, ...).
const siteType = z.enum(['basic', 'premium', 'ultimate', 'sponsored', 'legacy-basic', 'legacy-premium']);
const visibility = z.enum(['public', 'unlisted', 'share-link', 'visitor-auth']);
const title = z.string().min(2).max(128);
const proxyOrigin = z
  .string()
  .max(512)
  .regex(/^([\w-]+\.)*[\w-]+\.[a-zA-Z]{2,}(\/[\w-]+)+$/, { message: 'must be a host and path such as example.com/docs' });
/** A boolean query parameter that filters only when present. */
export const qOptionalBool = z
  .enum(['true', 'false', '1', '0'], { message: 'expected true or false' })
  .optional()
  .transform((v) => (v === undefined ? undefined : v === 'true' || v === '1'));
export const shareKeyQuery = { shareKey: z.string().max(256).optional() };

/** `?type=a&type=b` or `?type=a,b`. */
const typeList = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (v === undefined ? undefined : (Array.isArray(v) ? v : [v]).flatMap((x) => x.split(',')).filter(Boolean)))
  .pipe(z.array(siteType).max(6).optional());

/** `Prefer: return=minimal` asks for 204 instead of the object (0.202.0). */
export function minimalOr(req: IncomingMessage, reply: () => Promise<Reply>): Promise<Reply> {
  return /\breturn=minimal\b/i.test(String(req.headers.prefer ?? '')) ? Promise.resolve(noContent()) : reply();
}

export const siteRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/sites',
    params: { organizationId: entityId },
    query: {
      ...listQuery,
      space: entityId.optional(),
      title: z.string().max(128).optional(),
      published: qOptionalBool,
      type: typeList,
    },
    handler: async ({ app, principal, params, query }) => ok(await service.listSites(app, principal, params.organizationId, query)),
  }),
  route({
    method: 'POST',
    path: '/v1/orgs/:organizationId/sites',
    params: { organizationId: entityId },
    body: z
      .object({
        type: siteType,
        title,
        visibility,
        spaces: z.union([z.array(entityId).max(100), z.enum(['sample', 'empty'])]),
      })
      .partial()
      .strict(),
    bodyRequired: false,
    handler: async ({ app, principal, params, body }) => {
      const site = await service.createSite(app, principal, params.organizationId, body ?? {});
      return created(site, { location: site.urls.location });
    },
  }),
  route({
    method: 'GET',
    path: SITE,
    params: siteParams,
    handler: async ({ app, principal, params }) => ok(await service.getSite(app, principal, params.organizationId, params.siteId)),
  }),
  route({
    method: 'PATCH',
    path: SITE,
    params: siteParams,
    body: z
      .object({
        title,
        visibility,
        basename: z.string().min(1).max(100),
        // Not in the seed's PATCH: the Site's `hostname` (custom domain), our way to set it; null removes it.
        hostname: z
          .string()
          .max(512)
          .regex(/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$/, {
            message: 'must be a lowercase hostname with at least three labels, such as docs.example.com',
          })
          .nullable(),
        adaptiveContent: z.object({ enabled: z.boolean() }).strict(),
        agentsContext: z.enum(['excluded', 'included']),
        defaultSiteSpace: entityId,
        defaultSiteSection: entityId,
        proxy: proxyOrigin.nullable(),
        defaultLevel: z.union([roleSchema, z.literal('inherit'), z.null()], { message: 'must be a role, "inherit" or null' }),
      })
      .partial()
      .strict(),
    handler: async ({ app, principal, params, body }) =>
      ok(await service.updateSite(app, principal, params.organizationId, params.siteId, body)),
  }),
  route({
    method: 'DELETE',
    path: SITE,
    params: siteParams,
    handler: async ({ app, principal, params }) => {
      await service.deleteSite(app, principal, params.organizationId, params.siteId);
      return noContent();
    },
  }),
  route({
    method: 'POST',
    path: `${SITE}/publish`,
    params: siteParams,
    handler: async ({ app, principal, params }) =>
      ok(await service.setPublished(app, principal, params.organizationId, params.siteId, true)),
  }),
  route({
    method: 'POST',
    path: `${SITE}/unpublish`,
    params: siteParams,
    handler: async ({ app, principal, params }) =>
      ok(await service.setPublished(app, principal, params.organizationId, params.siteId, false)),
  }),
  route({
    method: 'GET',
    path: `${SITE}/published`,
    params: siteParams,
    query: shareKeyQuery,
    handler: async ({ app, principal, params, query }) =>
      ok(await service.getPublishedSite(app, principal, params.organizationId, params.siteId, query)),
  }),
  route({
    method: 'GET',
    path: `${SITE}/adaptive-schema`,
    params: siteParams,
    handler: async ({ app, principal, params }) =>
      ok(await service.getAdaptiveSchema(app, principal, params.organizationId, params.siteId)),
  }),
  route({
    method: 'PUT',
    path: `${SITE}/adaptive-schema`,
    params: siteParams,
    // The schema itself is checked by the service against the description's SiteAdaptiveJSONSchema.
    body: z.object({ jsonSchema: z.unknown().refine((v) => v !== undefined, { message: 'required' }) }).strict(),
    handler: async ({ app, principal, params, body }) =>
      ok(await service.putAdaptiveSchema(app, principal, params.organizationId, params.siteId, body.jsonSchema)),
  }),
  route({
    method: 'GET',
    path: `${SITE}/adaptive-schema/template-conditions`,
    params: siteParams,
    handler: async ({ app, principal, params }) =>
      ok(await service.listTemplateConditions(app, principal, params.organizationId, params.siteId)),
  }),
  // ---- customization and publishing auth ----
  route({
    method: 'GET',
    path: `${SITE}/customization`,
    params: siteParams,
    query: { unmasked: z.string().max(8).optional() },
    handler: async ({ app, principal, params }) =>
      ok(await settings.getCustomization(app, principal, params.organizationId, params.siteId)),
  }),
  route({
    method: 'PUT',
    path: `${SITE}/customization`,
    params: siteParams,
    body: customizationInput,
    handler: async ({ app, principal, params, body }) =>
      ok(await settings.putCustomization(app, principal, params.organizationId, params.siteId, body)),
  }),
  route({
    method: 'GET',
    path: `${SITE}/site-spaces/:siteSpaceId/customization`,
    params: { ...siteParams, siteSpaceId: entityId },
    handler: async ({ app, principal, params }) =>
      ok(await settings.getSiteSpaceCustomization(app, principal, params.organizationId, params.siteId, params.siteSpaceId)),
  }),
  route({
    method: 'PATCH',
    path: `${SITE}/site-spaces/:siteSpaceId/customization`,
    params: { ...siteParams, siteSpaceId: entityId },
    body: customizationOverrideInput,
    handler: async ({ app, principal, params, body }) =>
      ok(await settings.patchSiteSpaceCustomization(app, principal, params.organizationId, params.siteId, params.siteSpaceId, body)),
  }),
  route({
    method: 'DELETE',
    path: `${SITE}/site-spaces/:siteSpaceId/customization`,
    params: { ...siteParams, siteSpaceId: entityId },
    handler: async ({ app, principal, params }) => {
      await settings.deleteSiteSpaceCustomization(app, principal, params.organizationId, params.siteId, params.siteSpaceId);
      return noContent();
    },
  }),
  route({
    method: 'GET',
    path: `${SITE}/publishing/auth`,
    params: siteParams,
    handler: async ({ app, principal, params }) =>
      ok(await settings.getPublishingAuth(app, principal, params.organizationId, params.siteId)),
  }),
  route({
    method: 'PATCH',
    path: `${SITE}/publishing/auth`,
    params: siteParams,
    body: z
      .object({
        backend: z.literal('custom'),
        fallbackURL: z.string().url().max(2048).nullable(),
        logoutURL: z.string().url().max(2048).nullable(),
      })
      .partial()
      .strict(),
    handler: async ({ app, principal, params, body }) =>
      ok(await settings.updatePublishingAuth(app, principal, params.organizationId, params.siteId, body)),
  }),
  route({
    method: 'POST',
    path: `${SITE}/publishing/auth/regenerate`,
    params: siteParams,
    handler: async ({ app, principal, params }) =>
      ok(await settings.regeneratePublishingAuth(app, principal, params.organizationId, params.siteId)),
  }),
  // ---- share links ----
  route({
    method: 'GET',
    path: `${SITE}/share-links`,
    params: siteParams,
    query: { ...listQuery, search: z.string().max(256).optional() },
    handler: async ({ app, principal, params, query }) =>
      ok(await links.listShareLinks(app, principal, params.organizationId, params.siteId, query)),
  }),
  route({
    method: 'POST',
    path: `${SITE}/share-links`,
    params: siteParams,
    body: z.object({ name: z.string().max(50) }).strict(),
    handler: async ({ app, principal, params, body }) =>
      created(await links.createShareLink(app, principal, params.organizationId, params.siteId, body)),
  }),
  route({
    method: 'PATCH',
    path: `${SITE}/share-links/:shareLinkId`,
    params: { ...siteParams, shareLinkId: entityId },
    body: z
      .object({ name: z.string().max(50), active: z.boolean() })
      .partial()
      .strict(),
    handler: async ({ app, principal, params, body }) =>
      ok(await links.updateShareLink(app, principal, params.organizationId, params.siteId, params.shareLinkId, body)),
  }),
  route({
    method: 'DELETE',
    path: `${SITE}/share-links/:shareLinkId`,
    params: { ...siteParams, shareLinkId: entityId },
    handler: async ({ app, principal, params }) => {
      await links.deleteShareLink(app, principal, params.organizationId, params.siteId, params.shareLinkId);
      return noContent();
    },
  }),
];
