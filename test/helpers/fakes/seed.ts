// Rows put straight into the fake tables (store.ts): the state a test starts from, without going
// through the services under test.
import type { Principal } from '../../../src/auth/principal.js';
import { Draft } from '../../../src/content/draft.js';
import type { SectionRow, SiteSpaceRow } from '../../../src/db/repos/site-structure.js';
import type { SpaceRow } from '../../../src/db/repos/spaces.js';
import { newId } from '../../../src/util/ids.js';
import { fakeDb, key, now, resetTables, tables, type StoredSite } from './store.js';
import { fakeApp, type FakeApp } from './app.js';
import { newSiteRow } from './repos/sites.js';

export const principal = (userId: string, ssoOrgId?: string): Principal => ({ userId, tokenId: `token-${userId}`, ssoOrgId });

export function seedOrg(o: { id?: string; title?: string; sso?: boolean; hostname?: string | null } = {}): string {
  const id = o.id ?? newId();
  const at = now();
  tables.orgs.set(id, {
    id,
    title: o.title ?? 'Acme',
    created_at: at,
    updated_at: at,
    email_domains: [],
    hostname: o.hostname ?? null,
    type: 'business',
    use_case: null,
    community_type: null,
    default_role: null,
    default_content: null,
    logo_url: null,
    sso: o.sso ?? false,
    ai: false,
    invite_links: false,
    plan: 'free',
    custom_hostname: null,
  });
  return id;
}

/** A member of the organization with a role (null: a guest). */
export function addMember(orgId: string, userId: string, role: string | null, disabled = false): Principal {
  tables.members.set(key(orgId, userId), { role, disabled });
  return principal(userId);
}

/** A test's fresh start: empty tables, a new fake app, one organization, and `member` in it with `role`. */
export function freshOrg(member: { userId: string }, role: string): { app: FakeApp; org: string } {
  resetTables();
  const app = fakeApp();
  const org = seedOrg();
  addMember(org, member.userId, role);
  return { app, org };
}

export function seedSpace(orgId: string, s: Partial<SpaceRow> = {}): SpaceRow {
  const at = now();
  const row: SpaceRow = {
    id: newId(),
    organization_id: orgId,
    parent_id: null,
    title: 'Docs',
    emoji: '',
    visibility: 'private',
    edit_mode: 'live',
    default_level: 'inherit',
    language: null,
    position: tables.spaces.size + 1,
    revision_id: '',
    share_key: newId(16),
    git_sync: null,
    created_by: null,
    created_at: at,
    updated_at: at,
    deleted_at: null,
    comments: 0,
    change_requests: 0,
    change_requests_open: 0,
    change_requests_draft: 0,
    merge_rules: null,
    ...s,
  };
  tables.spaces.set(row.id, row);
  return row;
}

/**
 * Make `build`'s pages the space's new current revision (on top of nothing: a fresh tree). The
 * objects go through the content-objects repo, so the test file must fake it (and revisions).
 */
export async function seedContent(spaceId: string, build: (d: Draft) => void): Promise<string> {
  const draft = new Draft(null);
  build(draft);
  const rootHash = await draft.writeObjects(fakeDb(), spaceId);
  const id = newId();
  tables.revisions.set(key(spaceId, id), {
    id,
    space_id: spaceId,
    root_hash: rootHash,
    parents: [],
    type: 'edits',
    git: null,
    change_request_id: null,
    created_by: null,
    created_at: now(),
  });
  const space = tables.spaces.get(spaceId)!;
  Object.assign(space, { revision_id: id, updated_at: now() });
  return id;
}

export function seedSite(orgId: string, s: Partial<StoredSite> = {}): StoredSite {
  const row: StoredSite = {
    ...newSiteRow({ id: newId(), organization_id: orgId, type: 'basic', title: 'Docs site', visibility: 'public', created_by: 'nobody' }),
    ...s,
  };
  tables.sites.set(row.id, row);
  return row;
}

export function seedSection(siteId: string, s: Partial<SectionRow> & { path: string }): SectionRow {
  const row: SectionRow = {
    id: newId(),
    site_id: siteId,
    group_id: null,
    title: s.path,
    description: null,
    condition: null,
    icon: null,
    is_default: false,
    position: [...tables.sections.values()].filter((x) => x.site_id === siteId).length + 1,
    created_at: now(),
    ...s,
  };
  tables.sections.set(row.id, row);
  return row;
}

export function seedSiteSpace(siteId: string, spaceId: string, s: Partial<SiteSpaceRow> & { path: string }): SiteSpaceRow {
  const row: SiteSpaceRow = {
    id: newId(),
    site_id: siteId,
    section_id: null,
    space_id: spaceId,
    title: null,
    condition: null,
    hidden: false,
    page_id: null,
    is_default: false,
    position: [...tables.siteSpaces.values()].filter((x) => x.site_id === siteId && x.section_id === (s.section_id ?? null)).length + 1,
    customization: null,
    customization_updated_at: null,
    created_at: now(),
    ...s,
  };
  tables.siteSpaces.set(row.id, row);
  return row;
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection, but the promise resolved');
}
