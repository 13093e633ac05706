// Who can reach one space or collection, and how: the effective list ("aggregate") computed with
// the same pure functions every access check uses (spaceRole, collectionRole), for every enabled
// member of the organization at once.
import type { Queryable } from '../db/pool.js';
import { collectionChainInfo, type CollectionRow } from '../db/repos/collections.js';
import { grantsOfMembers } from '../db/repos/grants.js';
import type { MemberRow } from '../db/repos/members.js';
import type { SpaceRow } from '../db/repos/spaces.js';
import type { Role } from '../core/roles.js';
import { collectionRole } from './collections.js';
import { highestRole, spaceRole, type AccessContext } from './spaces.js';

export type GrantSubject = { kind: 'space'; space: SpaceRow } | { kind: 'collection'; collection: CollectionRow };

/** Every enabled member with their effective role on the subject (members without access are left out). */
export async function effectiveMembers(db: Queryable, subject: GrantSubject): Promise<{ member: MemberRow; role: Role }[]> {
  const orgId = subject.kind === 'space' ? subject.space.organization_id : subject.collection.organization_id;
  const [chain, data] = await Promise.all([
    collectionChainInfo(db, orgId),
    grantsOfMembers(db, orgId, subject.kind === 'space' ? subject.space.id : null),
  ]);
  const own = new Map<string, string[]>();
  for (const g of data.spaceGrants) own.set(g.user_id, [...(own.get(g.user_id) ?? []), g.role]);
  const onCollections = new Map<string, Map<string, string[]>>();
  for (const g of data.collectionGrants) {
    const byCollection = onCollections.get(g.user_id) ?? new Map<string, string[]>();
    byCollection.set(g.collection_id, [...(byCollection.get(g.collection_id) ?? []), g.role]);
    onCollections.set(g.user_id, byCollection);
  }
  const out: { member: MemberRow; role: Role }[] = [];
  for (const member of data.members) {
    const grants = new Map([...(onCollections.get(member.user_id) ?? [])].map(([id, roles]) => [id, highestRole(roles)!]));
    const ctx: AccessContext = { orgRole: member.role as Role | null, collections: chain, grants };
    const role =
      subject.kind === 'space'
        ? spaceRole(ctx, subject.space, highestRole(own.get(member.user_id)) ?? undefined)
        : collectionRole(ctx, subject.collection);
    if (role) out.push({ member, role });
  }
  return out;
}
