import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../../helpers/app.js';
import { assertMatchesSpec, assertMatchesSchema } from '../../helpers/spec.js';
import { setSpaceMember } from '../../../src/db/repos/spaces.js';
import { addMember } from '../../../src/services/identity.js';

const { t } = useTestApp();

type Org = Awaited<ReturnType<TestApp['seedOrg']>>;

async function newCollection(o: Org, body: Record<string, unknown> = {}, token = o.adminToken) {
  const r = await t.api('POST', `/v1/orgs/${o.orgId}/collections`, { token, body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

async function newSpace(o: Org, body: Record<string, unknown> = {}, token = o.adminToken) {
  const r = await t.api('POST', `/v1/orgs/${o.orgId}/spaces`, { token, body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

/** Titles of the org's collections as the list returns them (all pages). */
async function collectionTitles(o: Org, query = '', token = o.adminToken) {
  const r = await t.api('GET', `/v1/orgs/${o.orgId}/collections${query}`, { token });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.items.map((c: any) => c.title);
}

/** The shared sibling order (spaces and collections) under a parent, as stored. */
async function siblingOrder(orgId: string, parentId: string | null): Promise<string[]> {
  const { rows } = await t.app.db.query(
    `SELECT title FROM (
       SELECT title, position, created_at, id FROM spaces WHERE organization_id = $1 AND parent_id IS NOT DISTINCT FROM $2 AND deleted_at IS NULL
       UNION ALL SELECT title, position, created_at, id FROM collections WHERE organization_id = $1 AND parent_id IS NOT DISTINCT FROM $2) x
     ORDER BY position, created_at, id`,
    [orgId, parentId],
  );
  return rows.map((r) => r.title);
}

const move = (id: string, body: unknown, token: string) => t.api('POST', `/v1/collections/${id}/move`, { token, body });

describe('collections: create, read, update', () => {
  it('creates top-level and nested collections and reads them back, matching the public description', async () => {
    const o = await t.seedOrg();
    const r = await t.api('POST', `/v1/orgs/${o.orgId}/collections`, { token: o.adminToken, body: { title: 'Guides' } });
    expect(r.status).toBe(201);
    assertMatchesSpec('POST', '/orgs/{organizationId}/collections', 201, r.body);
    expect(r.body).toMatchObject({
      object: 'collection',
      title: 'Guides',
      organization: o.orgId,
      defaultLevel: 'inherit',
      permissions: { view: true, admin: true, viewInviteLinks: true, create: true },
    });
    expect(r.body.parent).toBeUndefined();
    expect(r.body.id).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(r.body.urls.location).toBe(`${t.baseUrl}/v1/collections/${r.body.id}`);
    expect(r.headers.get('location')).toBe(r.body.urls.location);

    const child = await newCollection(o, { title: 'Advanced', parent: r.body.id });
    expect(child.parent).toBe(r.body.id);

    const got = await t.api('GET', `/v1/collections/${child.id}`, { token: o.adminToken });
    expect(got.status).toBe(200);
    assertMatchesSpec('GET', '/collections/{collectionId}', 200, got.body);
    expect(got.body).toEqual(child);
    // The location URL works.
    expect((await fetch(got.body.urls.location, { headers: { authorization: `Bearer ${o.adminToken}` } })).status).toBe(200);

    // No body at all: an untitled collection, as the description marks nothing required.
    const untitled = await t.api('POST', `/v1/orgs/${o.orgId}/collections`, { token: o.adminToken });
    expect(untitled.status).toBe(201);
    expect(untitled.body.title).toBe('');
    expect((await t.api('GET', '/v1/collections/neverExisted', { token: o.adminToken })).status).toBe(404);
  });

  it('patches title, description and defaultLevel', async () => {
    const o = await t.seedOrg();
    const c = await newCollection(o, { title: 'Before' });
    const r = await t.api('PATCH', `/v1/collections/${c.id}`, {
      token: o.adminToken,
      body: { title: 'After', description: 'Everything about the product', defaultLevel: 'comment' },
    });
    expect(r.status).toBe(200);
    assertMatchesSpec('PATCH', '/collections/{collectionId}', 200, r.body);
    expect(r.body).toMatchObject({ title: 'After', description: 'Everything about the product', defaultLevel: 'comment' });
    const again = await t.api('GET', `/v1/collections/${c.id}`, { token: o.adminToken });
    expect(again.body).toMatchObject({ title: 'After', description: 'Everything about the product', defaultLevel: 'comment' });
    // Partial patches leave the other fields alone; null clears the default level (members see nothing).
    const hidden = await t.api('PATCH', `/v1/collections/${c.id}`, { token: o.adminToken, body: { defaultLevel: null } });
    expect(hidden.body).toMatchObject({ title: 'After', description: 'Everything about the product', defaultLevel: null });
    assertMatchesSchema('Collection', hidden.body);
    const back = await t.api('PATCH', `/v1/collections/${c.id}`, { token: o.adminToken, body: { defaultLevel: 'inherit' } });
    expect(back.body.defaultLevel).toBe('inherit');
  });

  it('validates input, naming the field', async () => {
    const o = await t.seedOrg();
    const other = await t.seedOrg();
    const foreign = await newCollection(other, { title: 'Foreign' });
    for (const [body, field] of [
      [{ title: 'x'.repeat(51) }, 'body.title'],
      [{ title: 42 }, 'body.title'],
      [{ parent: 'noSuchCollection' }, 'body.parent'],
      [{ parent: foreign.id }, 'body.parent'],
      [{ parent: 'not an id!' }, 'body.parent'],
      [{ colour: 'red' }, 'colour'],
    ] as const) {
      const r = await t.api('POST', `/v1/orgs/${o.orgId}/collections`, { token: o.adminToken, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.message).toContain(field);
    }
    // A 50-character title is fine.
    await newCollection(o, { title: 'x'.repeat(50) });

    const c = await newCollection(o, { title: 'Valid' });
    for (const [body, field] of [
      [{ title: 'y'.repeat(51) }, 'body.title'],
      [{ description: 'd'.repeat(101) }, 'body.description'],
      [{ defaultLevel: 'owner' }, 'body.defaultLevel'],
    ] as const) {
      const r = await t.api('PATCH', `/v1/collections/${c.id}`, { token: o.adminToken, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.message).toContain(field);
    }
    expect((await t.api('PATCH', `/v1/collections/${c.id}`, { token: o.adminToken, body: { description: 'd'.repeat(100) } })).status).toBe(
      200,
    );
    expect((await t.api('GET', `/v1/collections/${c.id}`, { token: o.adminToken })).body.title).toBe('Valid');

    const noArgs = await move(c.id, {}, o.adminToken);
    expect(noArgs.status).toBe(400);
    expect(noArgs.body.error.message).toMatch(/parent.*position/);
    const badPointer = await move(c.id, { position: { before: { type: 'page', page: 'x' } } }, o.adminToken);
    expect(badPointer.status).toBe(400);
    expect(badPointer.body.error.message).toContain('body.position');
    const noOrg = await t.api('POST', `/v1/collections/${c.id}/transfer`, { token: o.adminToken, body: {} });
    expect(noOrg.status).toBe(400);
    expect(noOrg.body.error.message).toContain('body.organization');
    const badFlag = await t.api('GET', `/v1/orgs/${o.orgId}/collections?nested=maybe`, { token: o.adminToken });
    expect(badFlag.status).toBe(400);
    expect(badFlag.body.error.message).toContain('query.nested');
    const badLimit = await t.api('GET', `/v1/collections/${c.id}/spaces?limit=1001`, { token: o.adminToken });
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.error.message).toContain('query.limit');
  });
});

describe('collection lists', () => {
  it('lists nested collections in tree order by default, only top-level ones with nested=false, and pages', async () => {
    const o = await t.seedOrg();
    const a = await newCollection(o, { title: 'A' });
    const b = await newCollection(o, { title: 'B' });
    const a1 = await newCollection(o, { title: 'A1', parent: a.id });
    await newCollection(o, { title: 'B1', parent: b.id });
    await newCollection(o, { title: 'A1a', parent: a1.id });
    await newCollection(o, { title: 'A2', parent: a.id });

    const all = await t.api('GET', `/v1/orgs/${o.orgId}/collections`, { token: o.adminToken });
    assertMatchesSpec('GET', '/orgs/{organizationId}/collections', 200, all.body);
    expect(all.body.items.map((c: any) => c.title)).toEqual(['A', 'A1', 'A1a', 'A2', 'B', 'B1']);
    expect(all.body.count).toBe(6);
    expect(await collectionTitles(o, '?nested=true')).toEqual(['A', 'A1', 'A1a', 'A2', 'B', 'B1']);
    const top = await t.api('GET', `/v1/orgs/${o.orgId}/collections?nested=false`, { token: o.adminToken });
    expect(top.body.items.map((c: any) => c.title)).toEqual(['A', 'B']);
    expect(top.body.count).toBe(2);

    // Sibling order drives the tree order: B (with its child) before A; A2 before A1 (with its child).
    expect((await move(b.id, { position: { before: { type: 'collection', collection: a.id } } }, o.adminToken)).status).toBe(200);
    const a2 = all.body.items.find((c: any) => c.title === 'A2');
    expect((await move(a2.id, { position: { before: { type: 'collection', collection: a1.id } } }, o.adminToken)).status).toBe(200);
    expect(await collectionTitles(o)).toEqual(['B', 'B1', 'A', 'A2', 'A1', 'A1a']);

    // Keyset pages cover everything once, in order, even when a collection is added between reads.
    const seen: string[] = [];
    let page: string | undefined;
    let first = true;
    do {
      const r = await t.api('GET', `/v1/orgs/${o.orgId}/collections?limit=4${page ? `&page=${page}` : ''}`, { token: o.adminToken });
      expect(r.status).toBe(200);
      seen.push(...r.body.items.map((c: any) => c.title));
      page = r.body.next?.page;
      if (first) await newCollection(o, { title: 'Z' });
      first = false;
    } while (page);
    expect(seen).toEqual(['B', 'B1', 'A', 'A2', 'A1', 'A1a', 'Z']);
  });

  it('lists the spaces of a collection that the caller can see, in sibling order', async () => {
    const o = await t.seedOrg();
    const reader = await t.seedUser(o.orgId, 'read');
    const c = await newCollection(o, { title: 'Docs' });
    const s1 = await newSpace(o, { title: 'First', parent: c.id });
    const s2 = await newSpace(o, { title: 'Second', parent: c.id });
    const hidden = await newSpace(o, { title: 'Hidden', parent: c.id, visibility: 'private' });
    await t.api('PATCH', `/v1/spaces/${hidden.id}`, { token: o.adminToken, body: { defaultLevel: null } });
    await newSpace(o, { title: 'Outside' });
    const inner = await newCollection(o, { title: 'Inner', parent: c.id });
    await newSpace(o, { title: 'Deeper', parent: inner.id });

    const r = await t.api('GET', `/v1/collections/${c.id}/spaces`, { token: o.adminToken });
    expect(r.status).toBe(200);
    assertMatchesSpec('GET', '/collections/{collectionId}/spaces', 200, r.body);
    expect(r.body.items.map((s: any) => s.title)).toEqual(['First', 'Second', 'Hidden']);
    expect(r.body.items[0]).toMatchObject({ parent: c.id, visibility: 'in-collection' });

    const asReader = await t.api('GET', `/v1/collections/${c.id}/spaces`, { token: reader.token });
    expect(asReader.body.items.map((s: any) => s.title)).toEqual(['First', 'Second']);
    expect(asReader.body.count).toBe(2);
    expect(asReader.body.items[0].permissions).toMatchObject({ view: true, edit: false });

    await t.api('POST', `/v1/spaces/${s2.id}/move`, {
      token: o.adminToken,
      body: { position: { before: { type: 'space', space: s1.id } } },
    });
    const p1 = await t.api('GET', `/v1/collections/${c.id}/spaces?limit=1`, { token: reader.token });
    expect(p1.body.items.map((s: any) => s.title)).toEqual(['Second']);
    const p2 = await t.api('GET', `/v1/collections/${c.id}/spaces?limit=1&page=${p1.body.next.page}`, { token: reader.token });
    expect(p2.body.items.map((s: any) => s.title)).toEqual(['First']);
    expect(p2.body.next).toBeUndefined();
  });
});

describe('moving and transferring collections', () => {
  it('moves before and after spaces and collections in the shared sibling order, and into another collection', async () => {
    const o = await t.seedOrg();
    const s1 = await newSpace(o, { title: 'S1' });
    const c1 = await newCollection(o, { title: 'C1' });
    const s2 = await newSpace(o, { title: 'S2' });
    const c2 = await newCollection(o, { title: 'C2' });
    expect(await siblingOrder(o.orgId, null)).toEqual(['S1', 'C1', 'S2', 'C2']);

    const m1 = await move(c2.id, { position: { before: { type: 'space', space: s1.id } } }, o.adminToken);
    expect(m1.status).toBe(200);
    assertMatchesSpec('POST', '/collections/{collectionId}/move', 200, m1.body);
    expect(await siblingOrder(o.orgId, null)).toEqual(['C2', 'S1', 'C1', 'S2']);
    await move(c2.id, { position: { after: { type: 'space', space: s2.id } } }, o.adminToken);
    expect(await siblingOrder(o.orgId, null)).toEqual(['S1', 'C1', 'S2', 'C2']);
    await move(c1.id, { position: { after: { type: 'collection', collection: c2.id } } }, o.adminToken);
    expect(await siblingOrder(o.orgId, null)).toEqual(['S1', 'S2', 'C2', 'C1']);
    await move(c1.id, { position: { after: { type: 'space', space: s1.id }, before: { type: 'space', space: s2.id } } }, o.adminToken);
    expect(await siblingOrder(o.orgId, null)).toEqual(['S1', 'C1', 'S2', 'C2']);
    // Many moves into the same gap keep a strict order.
    for (let i = 0; i < 60; i++) {
      await move(i % 2 ? c1.id : c2.id, { position: { after: { type: 'space', space: s1.id } } }, o.adminToken);
    }
    expect(await siblingOrder(o.orgId, null)).toEqual(['S1', 'C1', 'C2', 'S2']);

    // Into another collection, between its space and its sub-collection.
    const inS = await newSpace(o, { title: 'In-S', parent: c1.id });
    await newCollection(o, { title: 'In-C', parent: c1.id });
    const into = await move(c2.id, { parent: c1.id, position: { after: { type: 'space', space: inS.id } } }, o.adminToken);
    expect(into.status).toBe(200);
    expect(into.body.parent).toBe(c1.id);
    expect(await siblingOrder(o.orgId, c1.id)).toEqual(['In-S', 'C2', 'In-C']);
    expect(await siblingOrder(o.orgId, null)).toEqual(['S1', 'C1', 'S2']);
    // parent alone: last in the new parent.
    const last = await move(c2.id, { parent: null }, o.adminToken);
    expect(last.body.parent).toBeUndefined();
    expect(await siblingOrder(o.orgId, null)).toEqual(['S1', 'C1', 'S2', 'C2']);
    expect((await t.api('GET', `/v1/collections/${c2.id}`, { token: o.adminToken })).body.parent).toBeUndefined();

    // A pointer that is not a sibling in the target parent.
    const bad = await move(c2.id, { position: { before: { type: 'space', space: inS.id } } }, o.adminToken);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('position.before');
    expect(await siblingOrder(o.orgId, null)).toEqual(['S1', 'C1', 'S2', 'C2']);
  });

  it('refuses to move a collection into itself, a descendant or another organization', async () => {
    const o = await t.seedOrg();
    const top = await newCollection(o, { title: 'Top' });
    const mid = await newCollection(o, { title: 'Mid', parent: top.id });
    const leaf = await newCollection(o, { title: 'Leaf', parent: mid.id });
    for (const target of [top.id, mid.id, leaf.id]) {
      const r = await move(top.id, { parent: target }, o.adminToken);
      expect(r.status, target).toBe(400);
      expect(r.body.error.message).toContain('body.parent');
    }
    expect((await move(mid.id, { parent: leaf.id }, o.adminToken)).status).toBe(400);
    const foreign = await newCollection(await t.seedOrg(), { title: 'Elsewhere' });
    const r = await move(leaf.id, { parent: foreign.id }, o.adminToken);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain('body.parent');
    // Nothing moved.
    expect((await t.api('GET', `/v1/collections/${top.id}`, { token: o.adminToken })).body.parent).toBeUndefined();
    expect((await t.api('GET', `/v1/collections/${mid.id}`, { token: o.adminToken })).body.parent).toBe(top.id);
    expect((await t.api('GET', `/v1/collections/${leaf.id}`, { token: o.adminToken })).body.parent).toBe(mid.id);
    // Moving a descendant up is fine.
    expect((await move(leaf.id, { parent: top.id }, o.adminToken)).body.parent).toBe(top.id);
  });

  it('transfers a collection with its subtree when the caller administers both organizations', async () => {
    const src = await t.seedOrg('Source');
    const dst = await t.seedOrg('Destination');
    const c = await newCollection(src, { title: 'Travelling' });
    const sub = await newCollection(src, { title: 'Sub', parent: c.id });
    const s1 = await newSpace(src, { title: 'Top space', parent: c.id });
    const s2 = await newSpace(src, { title: 'Sub space', parent: sub.id });
    const trashed = await newSpace(src, { title: 'Trashed', parent: sub.id });
    await t.api('DELETE', `/v1/spaces/${trashed.id}`, { token: src.adminToken });
    const stayer = await newSpace(src, { title: 'Stays' });
    const sourceOnly = await t.seedUser(src.orgId, 'read');
    await setSpaceMember(t.app.db, s1.id, sourceOnly.userId, 'edit');

    // Admin of the source only: 403, nothing changes.
    const denied = await t.api('POST', `/v1/collections/${c.id}/transfer`, { token: src.adminToken, body: { organization: dst.orgId } });
    expect(denied.status).toBe(403);
    expect((await t.api('GET', `/v1/collections/${c.id}`, { token: src.adminToken })).body.organization).toBe(src.orgId);
    // A plain member of both: 403 too.
    await addMember(t.app.db, dst.orgId, src.adminId, 'edit');
    expect(
      (await t.api('POST', `/v1/collections/${c.id}/transfer`, { token: src.adminToken, body: { organization: dst.orgId } })).status,
    ).toBe(403);
    // An unknown target organization: 404.
    expect(
      (await t.api('POST', `/v1/collections/${c.id}/transfer`, { token: src.adminToken, body: { organization: 'noSuchOrg' } })).status,
    ).toBe(404);

    await t.app.db.query(`UPDATE members SET role = 'admin' WHERE organization_id = $1 AND user_id = $2`, [dst.orgId, src.adminId]);
    const r = await t.api('POST', `/v1/collections/${c.id}/transfer`, { token: src.adminToken, body: { organization: dst.orgId } });
    expect(r.status).toBe(200);
    assertMatchesSpec('POST', '/collections/{collectionId}/transfer', 200, r.body);
    expect(r.body.organization).toBe(dst.orgId);
    expect(r.body.parent).toBeUndefined();

    expect(await collectionTitles(dst, '', dst.adminToken)).toEqual(['Travelling', 'Sub']);
    expect(await collectionTitles(src)).toEqual([]);
    const subNow = await t.api('GET', `/v1/collections/${sub.id}`, { token: dst.adminToken });
    expect(subNow.body).toMatchObject({ organization: dst.orgId, parent: c.id });
    for (const s of [s1, s2]) {
      const got = await t.api('GET', `/v1/spaces/${s.id}`, { token: dst.adminToken });
      expect(got.status).toBe(200);
      expect(got.body.organization).toBe(dst.orgId);
    }
    expect((await t.api('GET', `/v1/spaces/${s2.id}`, { token: dst.adminToken })).body.parent).toBe(sub.id);
    const dstSpaces = await t.api('GET', `/v1/orgs/${dst.orgId}/spaces`, { token: dst.adminToken });
    expect(dstSpaces.body.items.map((s: any) => s.title).sort()).toEqual(['Sub space', 'Top space']);
    const srcSpaces = await t.api('GET', `/v1/orgs/${src.orgId}/spaces`, { token: src.adminToken });
    expect(srcSpaces.body.items.map((s: any) => s.id)).toEqual([stayer.id]);
    // The space in the trash went along: restorable in the new organization, in its collection.
    const restored = await t.api('POST', `/v1/spaces/${trashed.id}/restore`, { token: dst.adminToken });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ organization: dst.orgId, parent: sub.id });
    // A member of the source only lost access, explicit grant included.
    expect((await t.api('GET', `/v1/spaces/${s1.id}`, { token: sourceOnly.token })).status).toBe(404);
    expect((await t.api('GET', `/v1/collections/${c.id}`, { token: sourceOnly.token })).status).toBe(404);
    // Transferring to the organization it is already in changes nothing.
    const same = await t.api('POST', `/v1/collections/${c.id}/transfer`, { token: dst.adminToken, body: { organization: dst.orgId } });
    expect(same.status).toBe(200);
    expect(same.body.organization).toBe(dst.orgId);
  });
});

describe('defaultLevel inheritance into spaces', () => {
  it("a collection's defaultLevel decides what members can do in the spaces inside it", async () => {
    const o = await t.seedOrg();
    const member = await t.seedUser(o.orgId, 'read');
    const c = await newCollection(o, { title: 'Handbook' });
    const inCollection = await newSpace(o, { title: 'In collection', parent: c.id });
    expect(inCollection.visibility).toBe('in-collection');
    const inheriting = await newSpace(o, { title: 'Inheriting', parent: c.id, visibility: 'private' });
    expect(inheriting.defaultLevel).toBe('inherit');
    const ownLevel = await newSpace(o, { title: 'Own level', parent: c.id, visibility: 'private' });
    await t.api('PATCH', `/v1/spaces/${ownLevel.id}`, { token: o.adminToken, body: { defaultLevel: 'read' } });

    const patchTitle = (id: string, title: string) => t.api('PATCH', `/v1/spaces/${id}`, { token: member.token, body: { title } });
    // Inherit up to the member's organization role: read.
    expect((await patchTitle(inCollection.id, 'Nope')).status).toBe(403);
    expect((await patchTitle(inheriting.id, 'Nope')).status).toBe(403);

    const up = await t.api('PATCH', `/v1/collections/${c.id}`, { token: o.adminToken, body: { defaultLevel: 'edit' } });
    expect(up.status).toBe(200);
    const asMember = await t.api('GET', `/v1/spaces/${inCollection.id}`, { token: member.token });
    expect(asMember.body.permissions).toMatchObject({ view: true, edit: true, admin: false });
    expect((await patchTitle(inCollection.id, 'Edited by a reader')).status).toBe(200);
    expect((await t.api('GET', `/v1/spaces/${inCollection.id}`, { token: o.adminToken })).body.title).toBe('Edited by a reader');
    expect((await patchTitle(inheriting.id, 'Also edited')).status).toBe(200);
    // A space with its own defaultLevel keeps it.
    expect((await patchTitle(ownLevel.id, 'Nope')).status).toBe(403);
    // The collection itself reports the member's level.
    const coll = await t.api('GET', `/v1/collections/${c.id}`, { token: member.token });
    expect(coll.body.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });

    // Back to read: the member loses edit again.
    await t.api('PATCH', `/v1/collections/${c.id}`, { token: o.adminToken, body: { defaultLevel: 'read' } });
    expect((await patchTitle(inCollection.id, 'Nope')).status).toBe(403);
    // No access at all: the collection and its in-collection spaces disappear for the member.
    await t.api('PATCH', `/v1/collections/${c.id}`, { token: o.adminToken, body: { defaultLevel: null } });
    expect((await t.api('GET', `/v1/spaces/${inCollection.id}`, { token: member.token })).status).toBe(404);
    expect((await t.api('GET', `/v1/collections/${c.id}`, { token: member.token })).status).toBe(404);
    expect(await collectionTitles(o, '', member.token)).toEqual([]);
    expect((await t.api('GET', `/v1/spaces/${ownLevel.id}`, { token: member.token })).status).toBe(200);
  });

  it('inherits through nested collections', async () => {
    const o = await t.seedOrg();
    const member = await t.seedUser(o.orgId, 'read');
    const outer = await newCollection(o, { title: 'Outer' });
    const inner = await newCollection(o, { title: 'Inner', parent: outer.id });
    const s = await newSpace(o, { title: 'Deep', parent: inner.id });
    const patchTitle = (title: string) => t.api('PATCH', `/v1/spaces/${s.id}`, { token: member.token, body: { title } });

    expect((await patchTitle('Nope')).status).toBe(403);
    await t.api('PATCH', `/v1/collections/${outer.id}`, { token: o.adminToken, body: { defaultLevel: 'edit' } });
    expect((await patchTitle('Through two collections')).status).toBe(200);
    expect((await t.api('GET', `/v1/collections/${inner.id}`, { token: member.token })).body.permissions.view).toBe(true);
    // The inner collection's own level wins over the outer one's.
    await t.api('PATCH', `/v1/collections/${inner.id}`, { token: o.adminToken, body: { defaultLevel: 'comment' } });
    expect((await patchTitle('Nope')).status).toBe(403);
    const asMember = await t.api('GET', `/v1/spaces/${s.id}`, { token: member.token });
    expect(asMember.body.permissions).toMatchObject({ comment: true, edit: false });
    await t.api('PATCH', `/v1/collections/${inner.id}`, { token: o.adminToken, body: { defaultLevel: 'inherit' } });
    expect((await patchTitle('Inheriting again')).status).toBe(200);
    // Moving the inner collection out of the outer one changes what the member can do.
    await move(inner.id, { parent: null }, o.adminToken);
    expect((await patchTitle('Nope')).status).toBe(403);
    // A member given admin by the collection can administer it.
    await t.api('PATCH', `/v1/collections/${inner.id}`, { token: o.adminToken, body: { defaultLevel: 'admin' } });
    const byMember = await t.api('PATCH', `/v1/collections/${inner.id}`, { token: member.token, body: { title: 'Renamed by member' } });
    expect(byMember.status).toBe(200);
    expect(byMember.body.permissions).toEqual({ view: true, admin: true, viewInviteLinks: true, create: true });
  });
});

describe('deleting collections', () => {
  it('cascades: sub-collections are removed and spaces soft-deleted, restorable at the top level with the same access', async () => {
    const o = await t.seedOrg();
    const editor = await t.seedUser(o.orgId, 'edit');
    const c = await newCollection(o, { title: 'Doomed' });
    await t.api('PATCH', `/v1/collections/${c.id}`, { token: o.adminToken, body: { defaultLevel: 'read' } });
    const sub = await newCollection(o, { title: 'Doomed child', parent: c.id });
    const s1 = await newSpace(o, { title: 'In doomed', parent: c.id });
    const s2 = await newSpace(o, { title: 'In child', parent: sub.id });
    const earlier = await newSpace(o, { title: 'Deleted earlier', parent: sub.id });
    await t.api('DELETE', `/v1/spaces/${earlier.id}`, { token: o.adminToken });
    const { rows: before } = await t.app.db.query('SELECT deleted_at FROM spaces WHERE id = $1', [earlier.id]);
    const survivor = await newCollection(o, { title: 'Survivor' });
    const outside = await newSpace(o, { title: 'Outside' });
    expect((await t.api('PATCH', `/v1/spaces/${s1.id}`, { token: editor.token, body: { title: 'x' } })).status).toBe(403);

    const del = await t.api('DELETE', `/v1/collections/${c.id}`, { token: o.adminToken });
    expect(del.status).toBe(204);
    for (const id of [c.id, sub.id]) expect((await t.api('GET', `/v1/collections/${id}`, { token: o.adminToken })).status).toBe(404);
    for (const id of [s1.id, s2.id]) expect((await t.api('GET', `/v1/spaces/${id}`, { token: o.adminToken })).status).toBe(404);
    expect(await collectionTitles(o)).toEqual(['Survivor']);
    const live = await t.api('GET', `/v1/orgs/${o.orgId}/spaces`, { token: o.adminToken });
    expect(live.body.items.map((s: any) => s.id)).toEqual([outside.id]);
    const { rows } = await t.app.db.query('SELECT id, deleted_at, deleted_by FROM spaces WHERE id = ANY($1)', [[s1.id, s2.id, earlier.id]]);
    expect(rows).toHaveLength(3);
    for (const r of rows) expect(r.deleted_at).not.toBeNull();
    // A space deleted before keeps its deletion time.
    expect(rows.find((r) => r.id === earlier.id).deleted_at.getTime()).toBe(before[0].deleted_at.getTime());

    // Restorable, at the top level, with the level it had through the collection.
    for (const s of [s1, s2, earlier]) {
      const r = await t.api('POST', `/v1/spaces/${s.id}/restore`, { token: o.adminToken });
      expect(r.status, s.title).toBe(200);
      expect(r.body.parent).toBeUndefined();
      expect(r.body).toMatchObject({ visibility: 'private', defaultLevel: 'read' });
    }
    expect((await t.api('PATCH', `/v1/spaces/${s1.id}`, { token: editor.token, body: { title: 'x' } })).status).toBe(403);
    expect((await t.api('GET', `/v1/spaces/${s2.id}`, { token: editor.token })).body.permissions).toMatchObject({
      view: true,
      edit: false,
    });
    const order = await siblingOrder(o.orgId, null);
    expect(order.slice(0, 2)).toEqual(['Survivor', 'Outside']);
    expect(order.slice(2).sort()).toEqual(['Deleted earlier', 'In child', 'In doomed']);

    // Again, and never existed: 204.
    expect((await t.api('DELETE', `/v1/collections/${c.id}`, { token: o.adminToken })).status).toBe(204);
    expect((await t.api('DELETE', '/v1/collections/neverExisted', { token: o.adminToken })).status).toBe(204);
    expect((await t.api('GET', `/v1/collections/${survivor.id}`, { token: o.adminToken })).status).toBe(200);
  });

  it('a restored space of a collection that inherited the organization role keeps inheriting it', async () => {
    const o = await t.seedOrg();
    const editor = await t.seedUser(o.orgId, 'edit');
    const c = await newCollection(o, { title: 'Plain' });
    const s = await newSpace(o, { title: 'Plain space', parent: c.id });
    expect((await t.api('DELETE', `/v1/collections/${c.id}`, { token: o.adminToken })).status).toBe(204);
    const r = await t.api('POST', `/v1/spaces/${s.id}/restore`, { token: o.adminToken });
    expect(r.body).toMatchObject({ visibility: 'private', defaultLevel: 'inherit' });
    expect((await t.api('PATCH', `/v1/spaces/${s.id}`, { token: editor.token, body: { title: 'Edited' } })).status).toBe(200);
  });

  it('refuses a member who administers the collection but not everything inside it', async () => {
    const o = await t.seedOrg();
    const member = await t.seedUser(o.orgId, 'edit');
    const c = await newCollection(o, { title: 'Shared' });
    await t.api('PATCH', `/v1/collections/${c.id}`, { token: o.adminToken, body: { defaultLevel: 'admin' } });
    const mine = await newSpace(o, { title: 'Open', parent: c.id });
    const locked = await newSpace(o, { title: 'Locked', parent: c.id, visibility: 'private' });
    await t.api('PATCH', `/v1/spaces/${locked.id}`, { token: o.adminToken, body: { defaultLevel: 'read' } });

    const r = await t.api('DELETE', `/v1/collections/${c.id}`, { token: member.token });
    expect(r.status).toBe(403);
    expect(r.body.error.message).toMatch(/1 space\(s\) or collection\(s\).*do not administer/);
    expect((await t.api('GET', `/v1/collections/${c.id}`, { token: o.adminToken })).status).toBe(200);
    expect((await t.api('GET', `/v1/spaces/${mine.id}`, { token: o.adminToken })).status).toBe(200);

    await t.api('PATCH', `/v1/spaces/${locked.id}`, { token: o.adminToken, body: { defaultLevel: 'inherit' } });
    expect((await t.api('DELETE', `/v1/collections/${c.id}`, { token: member.token })).status).toBe(204);
    expect((await t.api('GET', `/v1/spaces/${mine.id}`, { token: o.adminToken })).status).toBe(404);
  });
});

describe('collection permissions', () => {
  it('a reader sees but cannot patch, move, transfer or delete', async () => {
    const o = await t.seedOrg();
    const reader = await t.seedUser(o.orgId, 'read');
    const c = await newCollection(o, { title: 'Guarded' });
    const other = await newCollection(o, { title: 'Other' });
    const got = await t.api('GET', `/v1/collections/${c.id}`, { token: reader.token });
    expect(got.status).toBe(200);
    expect(got.body.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
    expect(await collectionTitles(o, '', reader.token)).toEqual(['Guarded', 'Other']);

    const patch = await t.api('PATCH', `/v1/collections/${c.id}`, { token: reader.token, body: { title: 'Nope' } });
    expect(patch.status).toBe(403);
    expect(patch.body.error.message).toContain('read');
    expect((await move(c.id, { parent: other.id }, reader.token)).status).toBe(403);
    expect((await move(c.id, { position: { before: { type: 'collection', collection: other.id } } }, reader.token)).status).toBe(403);
    expect((await t.api('POST', `/v1/collections/${c.id}/transfer`, { token: reader.token, body: { organization: o.orgId } })).status).toBe(
      403,
    );
    expect((await t.api('DELETE', `/v1/collections/${c.id}`, { token: reader.token })).status).toBe(403);
    const after = await t.api('GET', `/v1/collections/${c.id}`, { token: o.adminToken });
    expect(after.body).toMatchObject({ title: 'Guarded' });
    expect(after.body.parent).toBeUndefined();
    expect(await siblingOrder(o.orgId, null)).toEqual(['Guarded', 'Other']);
  });

  it('creating needs createContent in the organization and create on the parent', async () => {
    const o = await t.seedOrg();
    const editor = await t.seedUser(o.orgId, 'edit');
    const creator = await t.seedUser(o.orgId, 'create');
    const editorTry = await t.api('POST', `/v1/orgs/${o.orgId}/collections`, { token: editor.token, body: { title: 'x' } });
    expect(editorTry.status).toBe(403);
    const mine = await newCollection(o, { title: 'By creator' }, creator.token);
    expect(mine.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: true });
    await newCollection(o, { title: 'Nested by creator', parent: mine.id }, creator.token);

    const readOnly = await newCollection(o, { title: 'Read only' });
    await t.api('PATCH', `/v1/collections/${readOnly.id}`, { token: o.adminToken, body: { defaultLevel: 'read' } });
    const denied = await t.api('POST', `/v1/orgs/${o.orgId}/collections`, {
      token: creator.token,
      body: { title: 'x', parent: readOnly.id },
    });
    expect(denied.status).toBe(403);
    // A parent the caller cannot see is reported like a missing one.
    const hidden = await newCollection(o, { title: 'Hidden' });
    await t.api('PATCH', `/v1/collections/${hidden.id}`, { token: o.adminToken, body: { defaultLevel: null } });
    const invisible = await t.api('POST', `/v1/orgs/${o.orgId}/collections`, {
      token: creator.token,
      body: { title: 'x', parent: hidden.id },
    });
    expect(invisible.status).toBe(400);
    expect(invisible.body.error.message).toContain('body.parent');
    // Moving into a collection where the caller cannot create is refused too.
    await t.api('PATCH', `/v1/collections/${mine.id}`, { token: o.adminToken, body: { defaultLevel: 'admin' } });
    expect((await move(mine.id, { parent: readOnly.id }, creator.token)).status).toBe(403);
    expect(await collectionTitles(o, '?nested=false')).toEqual(['By creator', 'Read only', 'Hidden']);
  });

  it('outsiders get 403 on the organization list and 404 on collections; guests see none', async () => {
    const o = await t.seedOrg();
    const c = await newCollection(o, { title: 'Private matters' });
    await newSpace(o, { title: 'Inside', parent: c.id });
    const outsider = await t.seedUser();
    const guest = await t.seedUser(o.orgId, null);

    const list = await t.api('GET', `/v1/orgs/${o.orgId}/collections`, { token: outsider.token });
    expect(list.status).toBe(403);
    expect((await t.api('POST', `/v1/orgs/${o.orgId}/collections`, { token: outsider.token, body: { title: 'x' } })).status).toBe(403);
    for (const token of [outsider.token, guest.token]) {
      const r = await t.api('GET', `/v1/collections/${c.id}`, { token });
      expect(r.status).toBe(404);
      expect(r.body.error.message).toContain(c.id);
      expect((await t.api('GET', `/v1/collections/${c.id}/spaces`, { token })).status).toBe(404);
      expect((await t.api('PATCH', `/v1/collections/${c.id}`, { token, body: { title: 'x' } })).status).toBe(404);
      expect((await move(c.id, { parent: null }, token)).status).toBe(404);
      expect((await t.api('POST', `/v1/collections/${c.id}/transfer`, { token, body: { organization: o.orgId } })).status).toBe(404);
      expect((await t.api('DELETE', `/v1/collections/${c.id}`, { token })).status).toBe(404);
    }
    const guestList = await t.api('GET', `/v1/orgs/${o.orgId}/collections`, { token: guest.token });
    expect(guestList.status).toBe(200);
    expect(guestList.body).toMatchObject({ items: [], count: 0 });
    expect((await t.api('GET', `/v1/collections/${c.id}`, { token: o.adminToken })).body.title).toBe('Private matters');
    expect((await t.api('GET', `/v1/orgs/${o.orgId}/collections`)).status).toBe(401);
  });
});
