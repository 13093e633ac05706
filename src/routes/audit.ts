// The audit log of an organization (organization admins only): listOrganizationAuditEvents,
// getOrganizationAuditEvent, listOrganizationAuditEventActions.
import { z } from 'zod';
import { route, ok } from '../http/route.js';
import { entityId, qInt } from '../http/validate.js';
import * as service from '../services/audit.js';

const orgParams = { organizationId: entityId };
const dateTime = z.iso.datetime({ offset: true });

export const auditRoutes = [
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/audit-events',
    summary: 'List the audit events of an organization (admins only)',
    params: orgParams,
    query: {
      page: z.string().max(1024).optional(),
      limit: qInt(1, 100).optional(),
      from: dateTime.optional(),
      to: dateTime.optional(),
      action: z.string().min(1).max(200).optional(),
      actor: z.string().min(1).max(200).optional(),
      target: z.string().min(1).max(200).optional(),
    },
    handler: async ({ app, principal, params, query }) => ok(await service.listEvents(app, principal, params.organizationId, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/audit-events/:auditEventId',
    summary: 'Get an audit event with its details (admins only)',
    params: { ...orgParams, auditEventId: z.string().min(1).max(64) },
    handler: async ({ app, principal, params }) => ok(await service.getEvent(app, principal, params.organizationId, params.auditEventId)),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/audit-event-actions',
    summary: 'List the actions audit events can have (admins only)',
    params: orgParams,
    handler: async ({ app, principal, params }) => ok(await service.listActions(app, principal, params.organizationId)),
  }),
];
