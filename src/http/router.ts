import FindMyWay from 'find-my-way';
import type { RouteDef, Method } from './route.js';

type Match = { route: RouteDef; params: Record<string, string | undefined> } | { allowed: Method[] } | null;

const METHODS: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** find-my-way underneath; adds what it leaves out: telling 405 (path known, method not) from 404. */
export function buildRouter(routes: RouteDef[]) {
  const fmw = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true, maxParamLength: 1000 });
  for (const r of routes) fmw.on(r.method, r.path, () => {}, r);
  return {
    match(method: string, path: string): Match {
      const found = METHODS.includes(method as Method) ? fmw.find(method as Method, path) : null;
      if (found) return { route: found.store as RouteDef, params: found.params };
      const allowed = METHODS.filter((m) => m !== method && fmw.find(m, path));
      return allowed.length ? { allowed } : null;
    },
  };
}
