import type { RouteDef } from '../http/route.js';
import { orgRoutes } from './orgs.js';
import { memberRoutes } from './members.js';
import { openapiRoutes } from './openapi.js';
import { operationRoutes } from './operations.js';
import { spaceRoutes } from './spaces.js';
import { contentRoutes } from './content.js';
import { collectionRoutes } from './collections.js';
import { searchRoutes } from './search.js';
import { askRoutes } from './ask.js';
import { linkRoutes } from './links.js';
import { templateRoutes } from './templates.js';
import { changeRequestRoutes } from './change-requests.js';
import { commentRoutes } from './comments.js';
import { reviewRoutes } from './reviews.js';
import { historyRoutes } from './history.js';
import { apiInfoRoutes } from './api-info.js';
import { pdfRoutes } from './pdf.js';
import { gitRoutes } from './git.js';
import { gitSyncRoutes } from './git-sync.js';
import { gitSyncSiteRoutes } from './git-sync-sites.js';
import { importRoutes } from './imports.js';
import { publishedRoutes } from './sites/published.js';
import { publishedContentRoutes } from './published-content.js';
import { translationRoutes } from './translations.js';
import { teamRoutes } from './teams.js';
import { permissionRoutes } from './permissions.js';
import { samlRoutes } from './saml.js';
import { ssoRoutes } from './sso.js';
import { siteRoutes } from './sites/sites.js';
import { siteStructureRoutes } from './sites/structure.js';
import { siteAccessRoutes } from './sites/access.js';
import { siteRedirectRoutes } from './sites/redirects.js';
import { siteExternalLinkRoutes } from './sites/external-links.js';
import { fontRoutes } from './sites/fonts.js';
import { siteInsightsRoutes } from './sites/insights.js';
import { readerSiteRoutes } from '../reader/routes.js';
import { inviteRoutes } from './invites.js';
import { userRoutes } from './users.js';
import { auditRoutes } from './audit.js';
import { signInRoutes } from './sign-in.js';

/** The routes of one file, grouped under `tag` in the generated API reference. */
const tagged = (tag: string, routes: RouteDef[]): RouteDef[] => routes.map((r) => ({ tag, ...r }));

/** Every public API route, one file per resource family. */
export const apiRoutes: RouteDef[] = [
  ...tagged('Organizations', orgRoutes),
  ...tagged('Members', memberRoutes),
  ...tagged('Invites', inviteRoutes),
  ...tagged('Users', userRoutes),
  ...tagged('Audit log', auditRoutes),
  ...tagged('Sign-in by e-mail', signInRoutes),
  ...tagged('OpenAPI specs', openapiRoutes),
  ...tagged('Operations', operationRoutes),
  ...tagged('Spaces', spaceRoutes),
  ...tagged('Content', contentRoutes),
  ...tagged('Collections', collectionRoutes),
  ...tagged('Search', searchRoutes),
  ...tagged('Ask', askRoutes),
  ...tagged('Links', linkRoutes),
  ...tagged('Templates', templateRoutes),
  ...tagged('Change requests', changeRequestRoutes),
  ...tagged('Comments', commentRoutes),
  ...tagged('Reviews', reviewRoutes),
  ...tagged('History', historyRoutes),
  ...tagged('API information', apiInfoRoutes),
  ...tagged('PDF export', pdfRoutes),
  ...tagged('Git sync', gitRoutes),
  ...tagged('Git sync', gitSyncRoutes),
  ...tagged('Git sync', gitSyncSiteRoutes),
  ...tagged('Imports', importRoutes),
  ...tagged('Published content', publishedRoutes),
  ...tagged('Published content', publishedContentRoutes),
  ...tagged('Translations', translationRoutes),
  ...tagged('Teams', teamRoutes),
  ...tagged('Permissions', permissionRoutes),
  ...tagged('SAML and SSO', samlRoutes),
  ...tagged('Single sign-on (browser)', ssoRoutes),
  ...tagged('Sites', siteRoutes),
  ...tagged('Site structure', siteStructureRoutes),
  ...tagged('Site access', siteAccessRoutes),
  ...tagged('Site redirects', siteRedirectRoutes),
  ...tagged('Site structure', siteExternalLinkRoutes),
  ...tagged('Custom fonts', fontRoutes),
  ...tagged('Site insights', siteInsightsRoutes),
  ...tagged('Published sites (readers)', readerSiteRoutes),
];
