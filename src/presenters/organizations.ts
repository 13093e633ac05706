import type { AppContext } from '../context.js';
import type { OrgWithMembership } from '../db/repos/organizations.js';
import { appUrls } from './urls.js';

/** What the caller may do in an organization (computed by src/policies/organizations.ts). */
export interface OrgPermissions {
  view: boolean;
  access: boolean;
  admin: boolean;
  ownTeam: boolean;
  createContent: boolean;
  createOpenAPISpec: boolean;
  ingestConversations: boolean;
  viewBilling: boolean;
  listMembers: boolean;
  listTeams: boolean;
  listIntegrations: boolean;
  listInstallations: boolean;
  installIntegration: boolean;
}

export function toOrganization(app: AppContext, o: OrgWithMembership, permissions: OrgPermissions) {
  const urls = appUrls(app);
  const out: Record<string, unknown> = {
    object: 'organization',
    id: o.id,
    title: o.title,
    createdAt: o.created_at.toISOString(),
    emailDomains: o.email_domains,
    type: o.type,
    defaultRole: o.default_role,
    sso: o.sso,
    ai: o.ai,
    inviteLinks: o.invite_links,
    plan: o.plan,
    mergeRules: { type: 'none' },
    trial: { status: 'notapplicable', count: 0 },
    urls: {
      location: urls.api(`/orgs/${o.id}`),
      app: urls.app(`/o/${o.id}`),
      ...(o.logo_url ? { logo: o.logo_url } : {}),
    },
    permissions,
  };
  if (o.hostname) out.hostname = o.hostname;
  if (o.use_case) out.useCase = o.use_case;
  if (o.community_type) out.communityType = o.community_type;
  if (o.default_content) out.defaultContent = o.default_content;
  if (o.custom_hostname) out.customHostname = o.custom_hostname;
  return out;
}
