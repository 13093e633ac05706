import type { RouteDef } from '../http/route.js';
import { orgRoutes } from './orgs.js';
import { memberRoutes } from './members.js';
import { openapiRoutes } from './openapi.js';
import { operationRoutes } from './operations.js';
import { spaceRoutes } from './spaces.js';
import { contentRoutes } from './content.js';
import { collectionRoutes } from './collections.js';
import { searchRoutes } from './search.js';
import { linkRoutes } from './links.js';
import { templateRoutes } from './templates.js';
import { changeRequestRoutes } from './change-requests.js';
import { commentRoutes } from './comments.js';
import { pdfRoutes } from './pdf.js';
import { gitRoutes } from './git.js';
import { importRoutes } from './imports.js';
import { publishedRoutes } from './published.js';

/** Every public API route, one file per resource family. */
export const apiRoutes: RouteDef[] = [
  ...orgRoutes,
  ...memberRoutes,
  ...openapiRoutes,
  ...operationRoutes,
  ...spaceRoutes,
  ...contentRoutes,
  ...collectionRoutes,
  ...searchRoutes,
  ...linkRoutes,
  ...templateRoutes,
  ...changeRequestRoutes,
  ...commentRoutes,
  ...pdfRoutes,
  ...gitRoutes,
  ...importRoutes,
  ...publishedRoutes,
];
