import { describe, expect, it } from 'vitest';
import { GitBookAPI } from '@gitbook/api';
import { useTestApp } from '../../helpers/app.js';
import { assertMatchesSpec } from '../../helpers/spec.js';

// A change request's description (a JSON document) and external links, through the official client:
// PATCH /spaces/{spaceId}/change-requests/{id} stores them, every ChangeRequest answer shows them,
// the links list given replaces the one kept (by id to update, without to add), and requestReviewers
// stores the description it is given.
const { t, org } = useTestApp({ seedOrg: true });

const client = (token: string): any => new GitBookAPI({ endpoint: t.baseUrl, authToken: token });
const CR = '/spaces/{spaceId}/change-requests/{changeRequestId}';

const paragraph = (text: string) => ({
  object: 'block',
  type: 'paragraph',
  data: {},
  nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }],
});
const doc = (...texts: string[]) => ({ object: 'document', data: {}, nodes: texts.map(paragraph) });

async function setup(subject = 'Details') {
  const admin = client(org.adminToken);
  const space = (await admin.orgs.createSpace(org.orgId, { title: 'Described docs' })).data.id as string;
  const cr = (await admin.spaces.createChangeRequest(space, { subject })).data;
  const patch = (body: unknown, token = org.adminToken) => t.api('PATCH', `/v1/spaces/${space}/change-requests/${cr.id}`, { token, body });
  const get = async () => {
    const r = await admin.spaces.getChangeRequestById(space, cr.id);
    assertMatchesSpec('GET', CR, 200, r.data);
    return r.data;
  };
  return { admin, space, cr, patch, get };
}

describe('change request description and links', () => {
  it('PATCH stores a description and links; get, list and update answers show them, schema-valid', async () => {
    const { admin, space, cr, get } = await setup();
    // None yet: no description, an empty list of links.
    assertMatchesSpec('POST', '/spaces/{spaceId}/change-requests', 201, cr);
    expect(cr.description).toBeUndefined();
    expect(cr.links).toEqual([]);

    const description = doc('Why this change:', 'the install guide was wrong.');
    const updated = await admin.spaces.updateChangeRequestById(space, cr.id, {
      description,
      links: [
        { ref: { kind: 'url', url: 'https://tracker.example.com/issues/42' }, title: 'Issue 42' },
        { ref: { kind: 'url', url: 'http://wiki.example.com/install' } },
      ],
    });
    assertMatchesSpec('PATCH', CR, 200, updated.data);
    expect(updated.data.subject).toBe('Details');
    expect(updated.data.description).toEqual(description);
    expect(updated.data.links.map((l: any) => [l.ref, l.title])).toEqual([
      [{ kind: 'url', url: 'https://tracker.example.com/issues/42' }, 'Issue 42'],
      [{ kind: 'url', url: 'http://wiki.example.com/install' }, undefined],
    ]);
    const ids = updated.data.links.map((l: any) => l.id);
    expect(ids.every((id: unknown) => typeof id === 'string' && /^[A-Za-z0-9]{20}$/.test(id as string))).toBe(true);
    expect(new Set(ids).size).toBe(2);

    const got = await get();
    expect(got.description).toEqual(description);
    expect(got.links).toEqual(updated.data.links);
    // By number too, and in the space's list.
    expect((await admin.spaces.getChangeRequestById(space, String(cr.number))).data.links).toEqual(updated.data.links);
    const listed = await admin.spaces.listChangeRequestsForSpace(space);
    assertMatchesSpec('GET', '/spaces/{spaceId}/change-requests', 200, listed.data);
    const inList = listed.data.items.find((x: any) => x.id === cr.id);
    expect(inList.description).toEqual(description);
    expect(inList.links).toEqual(updated.data.links);

    // A PATCH of the subject alone leaves both as they are.
    await admin.spaces.updateChangeRequestById(space, cr.id, { subject: 'Renamed' });
    const after = await get();
    expect(after.subject).toBe('Renamed');
    expect(after.description).toEqual(description);
    expect(after.links).toEqual(updated.data.links);
  });

  it('the links given replace the list: one updated by id, one left out is removed, one without id is added', async () => {
    const { admin, space, cr, get } = await setup();
    const first = (
      await admin.spaces.updateChangeRequestById(space, cr.id, {
        links: [
          { ref: { kind: 'url', url: 'https://a.example.com/' }, title: 'A' },
          { ref: { kind: 'url', url: 'https://b.example.com/' }, title: 'B' },
        ],
      })
    ).data.links;
    const [a, b] = first;

    const second = await admin.spaces.updateChangeRequestById(space, cr.id, {
      links: [
        { ref: { kind: 'url', url: 'https://c.example.com/new' }, title: 'C' },
        { id: a.id, ref: { kind: 'url', url: 'https://a.example.com/moved' }, title: 'A, moved' },
      ],
    });
    assertMatchesSpec('PATCH', CR, 200, second.data);
    const links = (await get()).links;
    expect(links).toEqual(second.data.links);
    expect(links).toHaveLength(2);
    // In the order given; `a` keeps its id with its new url and title; `b` is gone; `c` has a new id.
    expect(links[1]).toEqual({ id: a.id, ref: { kind: 'url', url: 'https://a.example.com/moved' }, title: 'A, moved' });
    expect(links[0].ref.url).toBe('https://c.example.com/new');
    expect([a.id, b.id]).not.toContain(links[0].id);
    expect(links.map((l: any) => l.id)).not.toContain(b.id);

    // The id of the removed link no longer names a link of the change request.
    const stale = await t.api('PATCH', `/v1/spaces/${space}/change-requests/${cr.id}`, {
      token: org.adminToken,
      body: { links: [{ id: b.id, ref: { kind: 'url', url: 'https://b.example.com/' } }] },
    });
    expect(stale.status).toBe(400);
    expect(stale.body.error.message).toContain('body.links[0].id');

    // An empty list removes them all.
    expect((await admin.spaces.updateChangeRequestById(space, cr.id, { links: [] })).data.links).toEqual([]);
    expect((await get()).links).toEqual([]);
  });

  it('refuses 11 links, a non-http URL, an unknown link id, a long title, a malformed or null description (400 naming the field), and changes nothing', async () => {
    const { patch, get } = await setup();
    const kept = doc('Kept.');
    const ok = await patch({ description: kept, links: [{ ref: { kind: 'url', url: 'https://kept.example.com/' } }] });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const before = await get();

    const link = (url: string) => ({ ref: { kind: 'url', url } });
    const refused = async (body: unknown, field: string) => {
      const r = await patch(body);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body).toEqual({ error: { code: 400, message: expect.stringContaining(field) } });
      return r.body.error.message as string;
    };

    await refused({ links: Array.from({ length: 11 }, (_, i) => link(`https://x.example.com/${i}`)) }, 'body.links');
    expect(await refused({ links: [link('javascript:alert(1)')] }, 'body.links.0.ref.url')).toContain('http or https');
    await refused({ links: [link('https://ok.example.com/'), link('ftp://files.example.com/x')] }, 'body.links.1.ref.url');
    await refused({ links: [{ ref: { kind: 'page', page: 'abc' } }] }, 'body.links.0.ref');
    await refused({ links: [{ ...link('https://ok.example.com/'), title: 'x'.repeat(129) }] }, 'body.links.0.title');
    expect(await refused({ links: [{ id: 'NotALinkOfThisCR', ...link('https://ok.example.com/') }] }, 'body.links[0].id')).toContain(
      'NotALinkOfThisCR',
    );
    // A node the document format does not have: named with its place in the document.
    await refused(
      { description: { object: 'document', data: {}, nodes: [paragraph('fine'), { object: 'block', type: 'paragraph', nodes: 'oops' }] } },
      'body.description.nodes[1]',
    );
    await refused(
      { description: { object: 'document', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf' }] }] } },
      'body.description',
    );
    await refused({ description: { object: 'page', nodes: [] } }, 'body.description');
    await refused({ description: 'just text' }, 'body.description');
    // The description's JSONDocument is not nullable.
    await refused({ description: null }, 'body.description');
    // Bounded: more than 100,000 characters of JSON (here many short paragraphs), or of text.
    expect(await refused({ description: doc(...Array.from({ length: 1_000 }, (_, i) => `line ${i}`)) }, 'body.description')).toContain(
      '100,000',
    );
    await refused({ description: doc(...Array.from({ length: 30 }, () => 'y'.repeat(4_000))) }, 'body.description');

    const after = await get();
    expect(after.description).toEqual(kept);
    expect(after.links).toEqual(before.links);
    expect(after.updatedAt).toBe(before.updatedAt);
  });

  it('a reader (no edit role) gets 403 and changes nothing; merged and archived change requests take them as they take a subject', async () => {
    const { admin, space, cr, patch, get } = await setup();
    const reader = await t.seedUser(org.orgId, 'read', 'Rob Reader');
    const r = await patch(
      { description: doc('Not mine.'), links: [{ ref: { kind: 'url', url: 'https://x.example.com/' } }] },
      reader.token,
    );
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe(403);
    const seen = await client(reader.token).spaces.getChangeRequestById(space, cr.id);
    assertMatchesSpec('GET', CR, 200, seen.data);
    expect(seen.data.description).toBeUndefined();
    expect(seen.data.links).toEqual([]);

    // Archived: the subject may still change, and so may the description and links.
    await admin.spaces.updateChangeRequestById(space, cr.id, { status: 'archived' });
    const archived = await patch({
      subject: 'Archived',
      description: doc('Shelved.'),
      links: [{ ref: { kind: 'url', url: 'https://a.example.com/' } }],
    });
    expect(archived.status, JSON.stringify(archived.body)).toBe(200);
    expect(archived.body.description).toEqual(doc('Shelved.'));

    // Merged: likewise.
    const other = (await admin.spaces.createChangeRequest(space, { subject: 'To merge' })).data;
    expect((await t.api('POST', `/v1/spaces/${space}/change-requests/${other.id}/merge`, { token: org.adminToken })).status).toBe(200);
    const merged = await admin.spaces.updateChangeRequestById(space, other.id, { subject: 'Merged', description: doc('Done.') });
    assertMatchesSpec('PATCH', CR, 200, merged.data);
    expect(merged.data).toMatchObject({ status: 'merged', subject: 'Merged', description: doc('Done.') });
    expect((await get()).description).toEqual(doc('Shelved.'));
  });

  it('requestReviewers stores the description it is given, and refuses a malformed one', async () => {
    const { admin, space, cr, get } = await setup();
    const reviewer = await t.seedUser(org.orgId, 'review', 'Rita Reviewer');
    const description = doc('Please check the new install steps.');
    const asked = await admin.spaces.requestReviewersForChangeRequest(space, cr.id, { users: [reviewer.userId], description });
    assertMatchesSpec('POST', `${CR}/requested-reviewers`, 200, asked.data);
    const got = await get();
    expect(got.description).toEqual(description);
    expect(got.subject).toBe('Details');

    const bad = await t.api('POST', `/v1/spaces/${space}/change-requests/${cr.id}/requested-reviewers`, {
      token: org.adminToken,
      body: {
        users: [reviewer.userId],
        description: { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: 'oops' }] },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('body.description.nodes[0]');
    expect((await get()).description).toEqual(description);
  });
});
