import type { Principal } from '../auth/principal.js';
import type { Role } from '../core/roles.js';

/**
 * An organization that enforces single sign-on (`sso: true`) lets its members in only with a
 * credential its SSO issued (the session of a login through one of its providers, or the token
 * that login minted). Its admins are exempt, so that a broken identity provider cannot lock
 * everyone out of the settings that fix it.
 */
export function blockedBySso(enforced: boolean | null | undefined, orgId: string, role: Role | null | undefined, p: Principal): boolean {
  return !!enforced && role !== undefined && role !== 'admin' && p.ssoOrgId !== orgId;
}
