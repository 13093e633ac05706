// Who may do what on translations. Translations belong to an organization: its members see them
// (and only those whose source space they can read); members who may create content in it
// (role `create` or above) create, change, run and delete them. Anything the caller may not see is
// a 404, as for an unknown id.
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/pool.js';
import { getSpace } from '../db/repos/spaces.js';
import { getTranslation, type TranslationRow } from '../db/repos/translations.js';
import type { TranslationPermissions } from '../presenters/translations.js';
import { forbidden, notFound } from '../core/errors.js';
import { requireOrg } from './organizations.js';
import { roleOnSpace } from './spaces.js';

/** Whether the caller can read the source space of a translation. */
export async function canSeeSource(db: Queryable, p: Principal, t: TranslationRow): Promise<boolean> {
  const space = await getSpace(db, t.source_space_id, { counters: false, includeDeleted: true });
  return !!space && !!(await roleOnSpace(db, p.userId, space)).role;
}

/** The organization with the caller's permissions on its translations (404/403 from requireOrg). */
export async function translationOrg(db: Queryable, p: Principal, orgId: string) {
  const { permissions } = await requireOrg(db, p, orgId, 'view');
  const perms: TranslationPermissions = { view: true, edit: permissions.createContent };
  return perms;
}

/** A translation of `orgId` the caller may see, with their permissions; `edit`: 403 unless they may change it. */
export async function requireTranslation(
  db: Queryable,
  p: Principal,
  orgId: string,
  id: string,
  needed: 'view' | 'edit' = 'view',
): Promise<{ translation: TranslationRow; permissions: TranslationPermissions }> {
  const permissions = await translationOrg(db, p, orgId);
  const translation = await getTranslation(db, id);
  if (!translation || translation.organization_id !== orgId || !(await canSeeSource(db, p, translation))) {
    throw notFound(`Translation "${id}" not found`);
  }
  if (needed === 'edit' && !permissions.edit) throw forbidden('Your role in this organization does not allow changing translations');
  return { translation, permissions };
}
