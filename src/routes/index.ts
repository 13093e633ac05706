import type { RouteDef } from '../http/route.js';
import { orgRoutes } from './orgs.js';
import { memberRoutes } from './members.js';
import { openapiRoutes } from './openapi.js';
import { operationRoutes } from './operations.js';
import { spaceRoutes } from './spaces.js';
import { contentRoutes } from './content.js';

/** Every public API route, one file per resource family. */
export const apiRoutes: RouteDef[] = [
  ...orgRoutes,
  ...memberRoutes,
  ...openapiRoutes,
  ...operationRoutes,
  ...spaceRoutes,
  ...contentRoutes,
];
