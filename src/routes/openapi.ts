import { z } from 'zod';
import { route, ok, created, noContent } from '../http/route.js';
import { entityId, listQuery } from '../http/validate.js';
import * as service from '../services/openapi.js';

const orgParams = { organizationId: entityId };
// The seeds' slug rule (lowercase), stricter than the public description's.
const slug = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, { message: 'must match ^[a-z0-9]+(?:-[a-z0-9]+)*$ (lowercase letters, digits, single hyphens)' });
const specParams = { ...orgParams, specSlug: slug };
const source = z.union(
  [
    z
      .object({
        url: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2048, { message: 'must be at most 2048 characters' }),
      })
      .strict(),
    z.object({ text: z.string().min(1, { message: 'must not be empty' }) }).strict(),
  ],
  { message: 'must be {"url": "<http(s) URL, at most 2048 characters>"} or {"text": "<OpenAPI document>"}' },
);

export const openapiRoutes = [
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/openapi',
    params: orgParams,
    query: listQuery,
    handler: async ({ app, principal, params, query }) => ok(await service.listSpecs(app, principal, params.organizationId, query)),
  }),
  route({
    method: 'POST',
    path: '/v1/orgs/:organizationId/openapi',
    params: orgParams,
    body: z.object({ slug, source }).strict(),
    handler: async ({ app, principal, params, body }) => {
      const r = await service.createSpec(app, principal, params.organizationId, body.slug, body.source);
      return created(r.spec, { location: r.location });
    },
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/openapi/:specSlug',
    params: specParams,
    handler: async ({ app, principal, params }) => ok(await service.getSpec(app, principal, params.organizationId, params.specSlug)),
  }),
  route({
    method: 'PUT',
    path: '/v1/orgs/:organizationId/openapi/:specSlug',
    params: specParams,
    body: z.object({ source }).strict(),
    handler: async ({ app, principal, params, body }) => {
      const r = await service.upsertSpec(app, principal, params.organizationId, params.specSlug, body.source);
      return { status: r.created ? 201 : 200, body: r.spec, headers: { location: r.location } };
    },
  }),
  route({
    method: 'PATCH',
    path: '/v1/orgs/:organizationId/openapi/:specSlug',
    params: specParams,
    body: z.object({ visibility: z.enum(['private', 'public']) }).strict(),
    handler: async ({ app, principal, params, body }) =>
      ok(await service.setSpecVisibility(app, principal, params.organizationId, params.specSlug, body.visibility)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/orgs/:organizationId/openapi/:specSlug',
    params: specParams,
    handler: async ({ app, principal, params }) => {
      await service.deleteSpec(app, principal, params.organizationId, params.specSlug);
      return noContent();
    },
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/openapi/:specSlug/versions',
    params: specParams,
    query: listQuery,
    handler: async ({ app, principal, params, query }) =>
      ok(await service.listSpecVersions(app, principal, params.organizationId, params.specSlug, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/openapi/:specSlug/versions/latest',
    params: specParams,
    handler: async ({ app, principal, params }) => ok(await service.getSpecVersion(app, principal, params.organizationId, params.specSlug)),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/openapi/:specSlug/versions/latest/content',
    params: specParams,
    handler: async ({ app, principal, params }) =>
      ok(await service.getSpecVersionContent(app, principal, params.organizationId, params.specSlug)),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/openapi/:specSlug/versions/latest/content/raw',
    params: specParams,
    handler: async ({ app, principal, params }) =>
      ok(await service.getSpecVersionRaw(app, principal, params.organizationId, params.specSlug)),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/openapi/:specSlug/versions/:versionId',
    params: { ...specParams, versionId: entityId },
    handler: async ({ app, principal, params }) =>
      ok(await service.getSpecVersion(app, principal, params.organizationId, params.specSlug, params.versionId)),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/openapi/:specSlug/versions/:versionId/content',
    params: { ...specParams, versionId: entityId },
    handler: async ({ app, principal, params }) =>
      ok(await service.getSpecVersionContent(app, principal, params.organizationId, params.specSlug, params.versionId)),
  }),
  route({
    method: 'GET',
    path: '/public/openapi/:organizationId/:specSlug',
    auth: false,
    params: specParams,
    handler: async ({ app, params }) => ({
      status: 200,
      body: JSON.parse((await service.getPublicSpec(app, params.organizationId, params.specSlug)).toString('utf8')),
    }),
  }),
];
