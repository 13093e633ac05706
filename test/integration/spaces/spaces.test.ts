import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { assertMatchesSpec, assertMatchesSchema } from '../../helpers/spec.js';
import { addFile, editContent, PNG_2x1 } from '../../helpers/content.js';
import { setSpaceMember } from '../../../src/db/repos/spaces.js';

const { t, org } = useTestApp({ seedOrg: true });

async function createSpace(body: Record<string, unknown> = {}, token = org.adminToken, orgId = org.orgId) {
  const r = await t.api('POST', `/v1/orgs/${orgId}/spaces`, { token, body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

describe('spaces', () => {
  it('creates a space with an initial revision and reads it back, matching the public description', async () => {
    const s = await createSpace({ title: 'Product docs', emoji: '📘', language: 'en' });
    assertMatchesSpec('POST', '/orgs/{organizationId}/spaces', 201, s);
    expect(s).toMatchObject({
      object: 'space',
      title: 'Product docs',
      emoji: '📘',
      visibility: 'private',
      editMode: 'live',
      organization: org.orgId,
      language: 'en',
      defaultLevel: 'inherit',
      comments: 0,
      changeRequests: 0,
      changeRequestsOpen: 0,
      changeRequestsDraft: 0,
      permissions: { view: true, admin: true, edit: true },
    });
    expect(s.revision).toMatch(/^\w{20}$/);
    const got = await t.api('GET', `/v1/spaces/${s.id}`, { token: org.adminToken });
    expect(got.status).toBe(200);
    assertMatchesSpec('GET', '/spaces/{spaceId}', 200, got.body);
    // urls are absolute and the location works.
    expect(got.body.urls.location).toBe(`${t.baseUrl}/v1/spaces/${s.id}`);
    expect((await fetch(got.body.urls.location, { headers: { authorization: `Bearer ${org.adminToken}` } })).status).toBe(200);
    const content = await t.api('GET', `/v1/spaces/${s.id}/content`, { token: org.adminToken });
    expect(content.body).toMatchObject({ object: 'revision', id: s.revision, parents: [] });
    expect(content.body.pages.map((p: any) => p.title)).toEqual(['Introduction']);
    const empty = await createSpace({ title: 'Empty', empty: true });
    expect((await t.api('GET', `/v1/spaces/${empty.id}/content/pages`, { token: org.adminToken })).body).toEqual({ pages: [] });
  });

  it('validates titles, emoji and enums, naming the field', async () => {
    for (const [body, field] of [
      [{ title: 'x'.repeat(51) }, 'body.title'],
      [{ emoji: 'e'.repeat(51) }, 'body.emoji'],
      [{ editMode: 'frozen' }, 'body.editMode'],
      [{ language: 'klingon' }, 'body.language'],
      [{ parent: 'noSuchCollection' }, 'collection'],
    ] as const) {
      const r = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toContain(field);
    }
    const s = await createSpace({ title: 'Valid' });
    const r = await t.api('PATCH', `/v1/spaces/${s.id}`, { token: org.adminToken, body: { title: 'y'.repeat(51) } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain('body.title');
  });

  it('patches title, emoji, editMode, defaultLevel and language', async () => {
    const s = await createSpace({ title: 'Before' });
    const r = await t.api('PATCH', `/v1/spaces/${s.id}`, {
      token: org.adminToken,
      body: { title: 'After', emoji: '🚀', editMode: 'locked', defaultLevel: 'comment', language: 'fr' },
    });
    expect(r.status).toBe(200);
    assertMatchesSpec('PATCH', '/spaces/{spaceId}', 200, r.body);
    expect(r.body).toMatchObject({ title: 'After', emoji: '🚀', editMode: 'locked', defaultLevel: 'comment', language: 'fr' });
    expect(Date.parse(r.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(s.updatedAt));
    const again = await t.api('GET', `/v1/spaces/${s.id}`, { token: org.adminToken });
    expect(again.body.title).toBe('After');
  });

  it('deletes softly (204, also when absent) and restores within 7 days, not after', async () => {
    const s = await createSpace({ title: 'Doomed' });
    expect((await t.api('DELETE', `/v1/spaces/${s.id}`, { token: org.adminToken })).status).toBe(204);
    expect((await t.api('GET', `/v1/spaces/${s.id}`, { token: org.adminToken })).status).toBe(404);
    expect((await t.api('DELETE', `/v1/spaces/${s.id}`, { token: org.adminToken })).status).toBe(204);
    expect((await t.api('DELETE', '/v1/spaces/neverExisted', { token: org.adminToken })).status).toBe(204);
    const restored = await t.api('POST', `/v1/spaces/${s.id}/restore`, { token: org.adminToken });
    expect(restored.status).toBe(200);
    expect(restored.body.deletedAt).toBeUndefined();
    expect((await t.api('GET', `/v1/spaces/${s.id}/content/pages`, { token: org.adminToken })).body.pages).toHaveLength(1);

    // Deleted eight days ago: too late.
    await t.api('DELETE', `/v1/spaces/${s.id}`, { token: org.adminToken });
    await t.app.db.query(`UPDATE spaces SET deleted_at = now() - interval '8 days' WHERE id = $1`, [s.id]);
    const late = await t.api('POST', `/v1/spaces/${s.id}/restore`, { token: org.adminToken });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toMatch(/more than 7 days/);
    expect((await t.api('GET', `/v1/spaces/${s.id}`, { token: org.adminToken })).status).toBe(404);
    // Six days ago: still possible.
    await t.app.db.query(`UPDATE spaces SET deleted_at = now() - interval '6 days' WHERE id = $1`, [s.id]);
    expect((await t.api('POST', `/v1/spaces/${s.id}/restore`, { token: org.adminToken })).status).toBe(200);
  });

  it('duplicates content and files; changing the copy leaves the original untouched; bytes are shared', async () => {
    const s = await createSpace({ title: 'Original', empty: true });
    await editContent(t, s.id, (d) => {
      const guide = d.insertPage(null, { id: 'guidePage', title: 'Guide', markdown: '# Guide\n\nOriginal text.' });
      d.insertPage(guide, { id: 'installPage', title: 'Install', markdown: 'Run the installer.' });
    });
    const fileId = await addFile(t, s.id, 'diagram.png', 'image/png', PNG_2x1);
    const copy = await t.api('POST', `/v1/spaces/${s.id}/duplicate`, { token: org.adminToken });
    expect(copy.status).toBe(201);
    assertMatchesSpec('POST', '/spaces/{spaceId}/duplicate', 201, copy.body);
    expect(copy.body.id).not.toBe(s.id);
    expect(copy.body.title).toBe('Original (copy)');
    const copyId = copy.body.id;

    const copiedPage = await t.api('GET', `/v1/spaces/${copyId}/content/page/installPage`, { token: org.adminToken });
    expect(copiedPage.body.markdown).toBe('Run the installer.');
    const files = await t.api('GET', `/v1/spaces/${copyId}/content/files`, { token: org.adminToken });
    expect(files.body.items.map((f: any) => f.name)).toEqual(['diagram.png']);

    await editContent(t, copyId, (d) => {
      d.updatePage('installPage', { title: 'Install (copy)', markdown: 'Changed in the copy.' });
      d.deletePage('guidePage');
    });
    const original = await t.api('GET', `/v1/spaces/${s.id}/content/page/installPage`, { token: org.adminToken });
    expect(original.body).toMatchObject({ title: 'Install', markdown: 'Run the installer.' });
    expect((await t.api('GET', `/v1/spaces/${s.id}/content/pages`, { token: org.adminToken })).body.pages[0].title).toBe('Guide');
    expect((await t.api('GET', `/v1/spaces/${copyId}/content/pages`, { token: org.adminToken })).body.pages).toEqual([]);

    // One stored object for the bytes, referenced by both spaces.
    const { rows } = await t.app.db.query(
      'SELECT space_id FROM space_blobs WHERE blob_key = (SELECT blob_key FROM space_blobs WHERE space_id = $1 LIMIT 1) ORDER BY space_id',
      [s.id],
    );
    expect(rows.map((r) => r.space_id).sort()).toEqual([s.id, copyId].sort());
    expect((await t.app.blobs.list('files/')).length).toBe(1);
    const f = await t.api('GET', `/v1/spaces/${copyId}/content/files/${fileId}`, { token: org.adminToken });
    // Same bytes (the URL's path is their hash); the expiry in the query may differ between two reads.
    expect(new URL(f.body.downloadURL).pathname).toBe(
      new URL((await t.api('GET', `/v1/spaces/${s.id}/content/files/${fileId}`, { token: org.adminToken })).body.downloadURL).pathname,
    );
  });

  it('moves spaces before and after siblings; lists honour the order', async () => {
    const o = await t.seedOrg('Ordering');
    const a = await createSpace({ title: 'A' }, o.adminToken, o.orgId);
    const b = await createSpace({ title: 'B' }, o.adminToken, o.orgId);
    const c = await createSpace({ title: 'C' }, o.adminToken, o.orgId);
    const titles = async () =>
      (await t.api('GET', `/v1/orgs/${o.orgId}/spaces`, { token: o.adminToken })).body.items.map((s: any) => s.title);
    expect(await titles()).toEqual(['A', 'B', 'C']);
    const m1 = await t.api('POST', `/v1/spaces/${c.id}/move`, {
      token: o.adminToken,
      body: { position: { before: { type: 'space', space: a.id } } },
    });
    expect(m1.status).toBe(200);
    assertMatchesSpec('POST', '/spaces/{spaceId}/move', 200, m1.body);
    expect(await titles()).toEqual(['C', 'A', 'B']);
    await t.api('POST', `/v1/spaces/${c.id}/move`, { token: o.adminToken, body: { position: { after: { type: 'space', space: a.id } } } });
    expect(await titles()).toEqual(['A', 'C', 'B']);
    await t.api('POST', `/v1/spaces/${a.id}/move`, { token: o.adminToken, body: { position: { after: { type: 'space', space: b.id } } } });
    expect(await titles()).toEqual(['C', 'B', 'A']);
    // Many moves into the same gap still keep a strict order (renumbering when floats run out).
    for (let i = 0; i < 60; i++) {
      await t.api('POST', `/v1/spaces/${i % 2 ? b.id : a.id}/move`, {
        token: o.adminToken,
        body: { position: { after: { type: 'space', space: c.id } } },
      });
    }
    expect(await titles()).toEqual(['C', 'B', 'A']);
    const bad = await t.api('POST', `/v1/spaces/${a.id}/move`, {
      token: o.adminToken,
      body: { position: { before: { type: 'space', space: 'elsewhere' } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('position.before');
    expect((await t.api('POST', `/v1/spaces/${a.id}/move`, { token: o.adminToken, body: {} })).status).toBe(400);
  });

  it('transfers a space to another organization when the caller administers both', async () => {
    const s = await createSpace({ title: 'Traveller' });
    const other = await t.seedOrg('Destination');
    // An admin of the source only: 403.
    const denied = await t.api('POST', `/v1/spaces/${s.id}/transfer`, { token: org.adminToken, body: { organization: other.orgId } });
    expect(denied.status).toBe(403);
    const { addMember } = await import('../../../src/services/identity.js');
    await addMember(t.app.db, other.orgId, org.adminId, 'admin');
    const r = await t.api('POST', `/v1/spaces/${s.id}/transfer`, { token: org.adminToken, body: { organization: other.orgId } });
    expect(r.status).toBe(200);
    assertMatchesSchema('Space', r.body);
    expect(r.body.organization).toBe(other.orgId);
    const inOther = await t.api('GET', `/v1/orgs/${other.orgId}/spaces`, { token: other.adminToken });
    expect(inOther.body.items.map((x: any) => x.id)).toContain(s.id);
    const inSource = await t.api('GET', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken });
    expect(inSource.body.items.map((x: any) => x.id)).not.toContain(s.id);
    expect((await t.api('POST', `/v1/spaces/${s.id}/transfer`, { token: org.adminToken, body: {} })).status).toBe(400);
  });
});

describe('space permissions', () => {
  it('a reader reads but cannot change; only admins delete, transfer or restore', async () => {
    const s = await createSpace({ title: 'Guarded' });
    const reader = await t.seedUser(org.orgId, 'read');
    const editor = await t.seedUser(org.orgId, 'edit');
    const got = await t.api('GET', `/v1/spaces/${s.id}`, { token: reader.token });
    expect(got.status).toBe(200);
    expect(got.body.permissions).toMatchObject({ view: true, edit: false, admin: false, comment: false });
    expect((await t.api('PATCH', `/v1/spaces/${s.id}`, { token: reader.token, body: { title: 'Nope' } })).status).toBe(403);
    expect((await t.api('PATCH', `/v1/spaces/${s.id}`, { token: editor.token, body: { title: 'Edited' } })).status).toBe(200);
    expect((await t.api('PATCH', `/v1/spaces/${s.id}`, { token: editor.token, body: { editMode: 'locked' } })).status).toBe(403);
    expect((await t.api('DELETE', `/v1/spaces/${s.id}`, { token: editor.token })).status).toBe(403);
    expect((await t.api('POST', `/v1/spaces/${s.id}/transfer`, { token: editor.token, body: { organization: org.orgId } })).status).toBe(
      403,
    );
    expect((await t.api('POST', `/v1/spaces/${s.id}/move`, { token: editor.token, body: { parent: null } })).status).toBe(403);
    await t.api('DELETE', `/v1/spaces/${s.id}`, { token: org.adminToken });
    expect((await t.api('POST', `/v1/spaces/${s.id}/restore`, { token: editor.token })).status).toBe(403);
    expect((await t.api('POST', `/v1/spaces/${s.id}/restore`, { token: org.adminToken })).status).toBe(200);
    expect((await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: editor.token, body: { title: 'x' } })).status).toBe(403);
  });

  it('a private space is a 404 to those who cannot see it', async () => {
    const s = await createSpace({ title: 'Secret' });
    await t.api('PATCH', `/v1/spaces/${s.id}`, { token: org.adminToken, body: { defaultLevel: null } });
    const member = await t.seedUser(org.orgId, 'edit');
    const outsider = await t.seedUser();
    for (const token of [member.token, outsider.token]) {
      const r = await t.api('GET', `/v1/spaces/${s.id}`, { token });
      expect(r.status).toBe(404);
      expect(r.body.error.message).toContain(s.id);
      expect((await t.api('GET', `/v1/spaces/${s.id}/content`, { token })).status).toBe(404);
      expect((await t.api('PATCH', `/v1/spaces/${s.id}`, { token, body: { title: 'x' } })).status).toBe(404);
    }
    // Invited explicitly: visible with the invited role.
    await setSpaceMember(t.app.db, s.id, member.userId, 'comment');
    const invited = await t.api('GET', `/v1/spaces/${s.id}`, { token: member.token });
    expect(invited.status).toBe(200);
    expect(invited.body.permissions).toMatchObject({ view: true, comment: true, edit: false });
  });

  it('lists the real permission of each space of a member', async () => {
    const o = await t.seedOrg('Perms');
    const writer = await t.seedUser(o.orgId, 'edit');
    await createSpace({ title: 'Open' }, o.adminToken, o.orgId);
    const readOnly = await createSpace({ title: 'Read only' }, o.adminToken, o.orgId);
    await t.api('PATCH', `/v1/spaces/${readOnly.id}`, { token: o.adminToken, body: { defaultLevel: 'read' } });
    const hidden = await createSpace({ title: 'Hidden' }, o.adminToken, o.orgId);
    await t.api('PATCH', `/v1/spaces/${hidden.id}`, { token: o.adminToken, body: { defaultLevel: null } });
    const elevated = await createSpace({ title: 'Elevated' }, o.adminToken, o.orgId);
    await setSpaceMember(t.app.db, elevated.id, writer.userId, 'admin');
    const r = await t.api('GET', `/v1/orgs/${o.orgId}/members/${writer.userId}/spaces?order=asc`, { token: o.adminToken });
    expect(r.status).toBe(200);
    assertMatchesSpec('GET', '/orgs/{organizationId}/members/{userId}/spaces', 200, r.body);
    expect(r.body.items.map((x: any) => [x.space.title, x.permission])).toEqual([
      ['Open', 'edit'],
      ['Read only', 'read'],
      ['Elevated', 'admin'],
    ]);
    expect(r.body.count).toBe(3);
    const desc = await t.api('GET', `/v1/orgs/${o.orgId}/members/${writer.userId}/spaces?limit=2`, { token: writer.token });
    expect(desc.body.items.map((x: any) => x.space.title)).toEqual(['Elevated', 'Read only']);
    const next = await t.api('GET', `/v1/orgs/${o.orgId}/members/${writer.userId}/spaces?limit=2&page=${desc.body.next.page}`, {
      token: writer.token,
    });
    expect(next.body.items.map((x: any) => x.space.title)).toEqual(['Open']);
    const member = await t.api('GET', `/v1/orgs/${o.orgId}/members/${writer.userId}`, { token: o.adminToken });
    expect(member.body.spaces).toBe(1); // explicit invitations
  });
});

describe('review fixes', () => {
  it('a removed member loses explicit space grants with the membership', async () => {
    const s = await createSpace({ title: 'Granted' });
    await t.api('PATCH', `/v1/spaces/${s.id}`, { token: org.adminToken, body: { defaultLevel: null } });
    const guest = await t.seedUser(org.orgId, null);
    await setSpaceMember(t.app.db, s.id, guest.userId, 'edit');
    expect((await t.api('GET', `/v1/spaces/${s.id}`, { token: guest.token })).body.permissions.edit).toBe(true);
    expect((await t.api('DELETE', `/v1/orgs/${org.orgId}/members/${guest.userId}`, { token: org.adminToken })).status).toBe(204);
    expect((await t.api('GET', `/v1/spaces/${s.id}`, { token: guest.token })).status).toBe(404);
    const { rows } = await t.app.db.query('SELECT 1 FROM space_members WHERE user_id = $1', [guest.userId]);
    expect(rows).toHaveLength(0);
  });

  it('creating a space in a collection needs create on it; a hidden collection reads as missing', async () => {
    const creator = await t.seedUser(org.orgId, 'create');
    const readOnly = (await t.api('POST', `/v1/orgs/${org.orgId}/collections`, { token: org.adminToken, body: { title: 'Read only' } }))
      .body;
    await t.api('PATCH', `/v1/collections/${readOnly.id}`, { token: org.adminToken, body: { defaultLevel: 'read' } });
    const denied = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: creator.token, body: { title: 'x', parent: readOnly.id } });
    expect(denied.status).toBe(403);
    const hidden = (await t.api('POST', `/v1/orgs/${org.orgId}/collections`, { token: org.adminToken, body: { title: 'Hidden' } })).body;
    await t.api('PATCH', `/v1/collections/${hidden.id}`, { token: org.adminToken, body: { defaultLevel: null } });
    const missing = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: creator.token, body: { title: 'x', parent: hidden.id } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain('body.parent');
    const { rows } = await t.app.db.query('SELECT count(*) AS n FROM spaces WHERE parent_id = ANY($1)', [[readOnly.id, hidden.id]]);
    expect(rows[0].n).toBe(0);
  });
});
