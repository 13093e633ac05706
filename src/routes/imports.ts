import type { RouteDef } from '../http/route.js';

export const importRoutes: RouteDef[] = [];
