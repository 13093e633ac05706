import { z } from 'zod';
import { route, ok, created, noContent } from '../../http/route.js';
import type { RouteDef } from '../../http/route.js';
import { entityId, listQuery } from '../../http/validate.js';
import * as structure from '../../services/sites/structure.js';
import * as sections from '../../services/sites/sections.js';
import * as siteSpaces from '../../services/sites/spaces.js';
import * as groups from '../../services/sites/groups.js';
import { minimalOr, qOptionalBool, shareKeyQuery, siteParams } from './sites.js';

const SITE = '/v1/orgs/:organizationId/sites/:siteId';
const sectionTitle = z.string().min(2).max(128);
const path = z.string().min(1).max(100);
const condition = z.string().max(1024);
const icon = z.string().max(50);
const template = z.object({ id: z.string().max(64), params: z.record(z.string(), z.unknown()).optional() }).strict();
const sectionParams = { ...siteParams, siteSectionId: entityId };
const siteSpaceParams = { ...siteParams, siteSpaceId: entityId };
const groupParams = { ...siteParams, siteSectionGroupId: entityId };

const pointer = <T extends string, K extends string>(type: T, key: K) =>
  z.object({ type: z.literal(type), [key]: entityId } as { type: z.ZodLiteral<T> } & Record<K, typeof entityId>).strict();
const position = <S extends z.ZodType>(p: S) => z.object({ before: p, after: p }).partial().strict();
const itemPointer = z
  .object({ type: z.enum(['site-space', 'site-section', 'site-section-group', 'site-external-link']), id: entityId })
  .strict();
const groupPointer = z.object({ type: z.enum(['site-section', 'site-section-group']), id: entityId }).strict();

export const siteStructureRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: `${SITE}/structure`,
    params: siteParams,
    query: shareKeyQuery,
    handler: async ({ app, principal, params, query }) =>
      ok(await structure.getStructure(app, principal, params.organizationId, params.siteId, query)),
  }),
  route({
    method: 'PATCH',
    path: `${SITE}/structure/sort`,
    params: siteParams,
    body: z.object({ item: itemPointer, position: position(itemPointer) }).strict(),
    handler: async ({ app, principal, params, body, req }) => {
      const item = await structure.sortStructure(app, principal, params.organizationId, params.siteId, body);
      return minimalOr(req, async () => ok(item));
    },
  }),
  // ---- sections ----
  route({
    method: 'GET',
    path: `${SITE}/sections`,
    params: siteParams,
    query: { ...listQuery, ...shareKeyQuery },
    handler: async ({ app, principal, params, query }) =>
      ok(await sections.listSections(app, principal, params.organizationId, params.siteId, query)),
  }),
  route({
    method: 'POST',
    path: `${SITE}/sections`,
    params: siteParams,
    body: z
      .object({
        spaceId: entityId.nullable(),
        template: template.optional(),
        title: sectionTitle.nullable().optional(),
        icon: icon.nullable().optional(),
        draft: z.boolean().optional(),
        siteSectionGroupId: entityId.nullable().optional(),
      })
      .strict(),
    handler: async ({ app, principal, params, body, req }) => {
      const section = await sections.addSection(app, principal, params.organizationId, params.siteId, body);
      return minimalOr(req, async () => created(section));
    },
  }),
  route({
    method: 'DELETE',
    path: `${SITE}/sections/:siteSectionId`,
    params: sectionParams,
    handler: async ({ app, principal, params }) => {
      await sections.deleteSection(app, principal, params.organizationId, params.siteId, params.siteSectionId);
      return noContent();
    },
  }),
  route({
    method: 'PATCH',
    path: `${SITE}/sections/:siteSectionId`,
    params: sectionParams,
    body: z
      .object({
        title: sectionTitle,
        path,
        defaultSiteSpace: entityId,
        condition: condition.nullable(),
        icon: icon.nullable(),
        description: z.string().max(256).nullable(),
        draft: z.boolean(),
        siteSectionGroupId: entityId.nullable(),
      })
      .partial()
      .strict(),
    handler: async ({ app, principal, params, body, req }) => {
      const section = await sections.updateSection(app, principal, params.organizationId, params.siteId, params.siteSectionId, body);
      return minimalOr(req, async () => ok(section));
    },
  }),
  route({
    method: 'POST',
    path: `${SITE}/sections/:siteSectionId/move`,
    params: sectionParams,
    body: z
      .object({ position: position(pointer('site-section', 'siteSection')) })
      .partial()
      .strict(),
    bodyRequired: false,
    handler: async ({ app, principal, params, body }) =>
      ok(await sections.moveSection(app, principal, params.organizationId, params.siteId, params.siteSectionId, body?.position)),
  }),
  // ---- site spaces ----
  route({
    method: 'GET',
    path: `${SITE}/site-spaces`,
    params: siteParams,
    query: { ...listQuery, ...shareKeyQuery, default: qOptionalBool },
    handler: async ({ app, principal, params, query }) =>
      ok(await siteSpaces.listSiteSpaces(app, principal, params.organizationId, params.siteId, query)),
  }),
  route({
    method: 'POST',
    path: `${SITE}/site-spaces`,
    params: siteParams,
    body: z
      .object({
        spaceId: entityId.nullable(),
        template: template.optional(),
        sectionId: entityId.optional(),
        title: z.string().min(1).max(128).optional(),
        draft: z.boolean().optional(),
        hidden: z.boolean().optional(),
        pageId: entityId.nullable().optional(),
      })
      .strict(),
    handler: async ({ app, principal, params, body, req }) => {
      const siteSpace = await siteSpaces.addSiteSpace(app, principal, params.organizationId, params.siteId, body);
      return minimalOr(req, async () => created(siteSpace));
    },
  }),
  route({
    method: 'DELETE',
    path: `${SITE}/site-spaces/:siteSpaceId`,
    params: siteSpaceParams,
    handler: async ({ app, principal, params }) => {
      await siteSpaces.deleteSiteSpace(app, principal, params.organizationId, params.siteId, params.siteSpaceId);
      return noContent();
    },
  }),
  route({
    method: 'PATCH',
    path: `${SITE}/site-spaces/:siteSpaceId`,
    params: siteSpaceParams,
    body: z
      .object({
        path,
        condition: condition.nullable(),
        spaceId: entityId,
        hidden: z.boolean(),
        draft: z.boolean(),
        pageId: entityId.nullable(),
        title: z.string().min(1).max(128).nullable(),
      })
      .partial()
      .strict(),
    handler: async ({ app, principal, params, body, req }) => {
      const { draft: _draft, ...patch } = body;
      const siteSpace = await siteSpaces.updateSiteSpace(app, principal, params.organizationId, params.siteId, params.siteSpaceId, patch);
      return minimalOr(req, async () => ok(siteSpace));
    },
  }),
  route({
    method: 'POST',
    path: `${SITE}/site-spaces/:siteSpaceId/move`,
    params: siteSpaceParams,
    body: z
      .object({ position: position(pointer('site-space', 'siteSpace')) })
      .partial()
      .strict(),
    bodyRequired: false,
    handler: async ({ app, principal, params, body }) =>
      ok(await siteSpaces.moveSiteSpace(app, principal, params.organizationId, params.siteId, params.siteSpaceId, body?.position)),
  }),
  // ---- section groups ----
  route({
    method: 'GET',
    path: `${SITE}/section-groups`,
    params: siteParams,
    query: listQuery,
    handler: async ({ app, principal, params, query }) =>
      ok(await groups.listGroups(app, principal, params.organizationId, params.siteId, query)),
  }),
  route({
    method: 'POST',
    path: `${SITE}/section-groups`,
    params: siteParams,
    body: z
      .object({
        title: z.string().min(1).max(100),
        icon: icon.nullable().optional(),
        sections: z.array(entityId).max(100).optional(),
        parent: entityId.nullable().optional(),
        draft: z.boolean().optional(),
      })
      .strict(),
    handler: async ({ app, principal, params, body }) =>
      created(await groups.createGroup(app, principal, params.organizationId, params.siteId, body)),
  }),
  route({
    method: 'DELETE',
    path: `${SITE}/section-groups/:siteSectionGroupId`,
    params: groupParams,
    handler: async ({ app, principal, params }) => {
      await groups.deleteGroup(app, principal, params.organizationId, params.siteId, params.siteSectionGroupId);
      return noContent();
    },
  }),
  route({
    method: 'PATCH',
    path: `${SITE}/section-groups/:siteSectionGroupId`,
    params: groupParams,
    body: z
      .object({
        title: z.string().min(1).max(100),
        icon: icon.nullable(),
        draft: z.boolean(),
        parentSectionGroupId: entityId.nullable(),
      })
      .partial()
      .strict(),
    handler: async ({ app, principal, params, body, req }) => {
      const group = await groups.updateGroup(app, principal, params.organizationId, params.siteId, params.siteSectionGroupId, body);
      return minimalOr(req, async () => ok(group));
    },
  }),
  route({
    method: 'POST',
    path: `${SITE}/section-groups/:siteSectionGroupId/sections`,
    params: groupParams,
    body: z.object({ sectionId: entityId }).strict(),
    handler: async ({ app, principal, params, body }) =>
      created(
        await groups.addSectionToGroup(app, principal, params.organizationId, params.siteId, params.siteSectionGroupId, body.sectionId),
      ),
  }),
  route({
    method: 'DELETE',
    path: `${SITE}/section-groups/:siteSectionGroupId/sections/:siteSectionId`,
    params: { ...groupParams, siteSectionId: entityId },
    handler: async ({ app, principal, params }) => {
      await groups.removeSectionFromGroup(
        app,
        principal,
        params.organizationId,
        params.siteId,
        params.siteSectionGroupId,
        params.siteSectionId,
      );
      return noContent();
    },
  }),
  route({
    method: 'POST',
    path: `${SITE}/section-groups/:siteSectionGroupId/move`,
    params: groupParams,
    body: z
      .object({ position: position(groupPointer) })
      .partial()
      .strict(),
    bodyRequired: false,
    handler: async ({ app, principal, params, body }) =>
      ok(await groups.moveGroup(app, principal, params.organizationId, params.siteId, params.siteSectionGroupId, body?.position)),
  }),
];
