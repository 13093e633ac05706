import { describe, expect, it } from 'vitest';
import { actionOfRoute } from '../../../src/services/audit.js';

describe('audit action names', () => {
  it('name a change by its resource path and verb, stable whatever the ids', () => {
    expect(actionOfRoute('POST', '/v1/orgs/:organizationId/spaces')).toBe('spaces.create');
    expect(actionOfRoute('PATCH', '/v1/spaces/:spaceId')).toBe('spaces.update');
    expect(actionOfRoute('DELETE', '/v1/spaces/:spaceId')).toBe('spaces.delete');
    expect(actionOfRoute('POST', '/v1/spaces/:spaceId/permissions')).toBe('spaces.permissions.create');
    expect(actionOfRoute('PATCH', '/v1/spaces/:spaceId/permissions/users/:userId')).toBe('spaces.permissions.users.update');
    expect(actionOfRoute('POST', '/v1/spaces/:spaceId/change-requests/:changeRequestId/merge')).toBe('spaces.change-requests.merge');
    expect(actionOfRoute('POST', '/v1/orgs/:organizationId/sites/:siteId/publish')).toBe('sites.publish');
    expect(actionOfRoute('PATCH', '/v1/orgs/:organizationId/members/:userId')).toBe('members.update');
    expect(actionOfRoute('PATCH', '/v1/orgs/:organizationId')).toBe('orgs.update');
    expect(actionOfRoute('PUT', '/v1/orgs/:organizationId/teams/:teamId/members/:userId')).toBe('teams.members.set');
  });

  it('leave out reads, searches sent as POST and presence pings', () => {
    expect(actionOfRoute('GET', '/v1/spaces/:spaceId')).toBeNull();
    expect(actionOfRoute('POST', '/v1/orgs/:organizationId/ping')).toBeNull();
    expect(actionOfRoute('POST', '/v1/orgs/:organizationId/sites/:siteId/search')).toBeNull();
  });
});
