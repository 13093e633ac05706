import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../../helpers/app.js';
import { assertMatchesSchema, assertMatchesSpec } from '../../helpers/spec.js';
import { editContent } from '../../helpers/content.js';
import { setSpaceMember } from '../../../src/db/repos/spaces.js';

const { t, org } = useTestApp({ seedOrg: true });
type User = Awaited<ReturnType<TestApp['seedUser']>>;
let alice: User; // comment role
let bob: User; // comment role
let rita: User; // review role
let reader: User; // read role
let outsider: User; // not a member

beforeAll(async () => {
  alice = await t.seedUser(org.orgId, 'comment', 'Alice');
  bob = await t.seedUser(org.orgId, 'comment', 'Bob');
  rita = await t.seedUser(org.orgId, 'review', 'Rita');
  reader = await t.seedUser(org.orgId, 'read', 'Reader');
  outsider = await t.seedUser(undefined, undefined, 'Outsider');
});

const api = (method: string, path: string, token: string, body?: unknown) => t.api(method, path, { token, body });

const GUIDE = '# Setup\n\nInstall it.\n\n## Configure\n\nSet the options.\n';

/** A space (private, default level inherited from the organization role) with a "Guide" page. */
async function space() {
  const r = await api('POST', `/v1/orgs/${org.orgId}/spaces`, org.adminToken, { title: 'Docs' });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  let guide = '';
  await editContent(t, r.body.id, (d) => {
    guide = d.insertPage(null, { title: 'Guide', markdown: GUIDE });
  });
  return { id: r.body.id as string, guide };
}

async function changeRequest(spaceId: string) {
  const r = await api('POST', `/v1/spaces/${spaceId}/change-requests`, org.adminToken, { subject: 'Review me' });
  expect(r.status).toBe(201);
  return r.body as { id: string; number: number };
}

async function post(base: string, token: string, body: Record<string, unknown>) {
  const r = await api('POST', `${base}/comments`, token, body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

const say = (markdown: string) => ({ body: { markdown } });
const ids = (list: { items: { id: string }[] }) => list.items.map((x) => x.id);
const spaceCounter = async (spaceId: string) => (await api('GET', `/v1/spaces/${spaceId}`, org.adminToken)).body.comments;
const crCounter = async (spaceId: string, crId: string) =>
  (await api('GET', `/v1/spaces/${spaceId}/change-requests/${crId}`, org.adminToken)).body.comments;

describe('comments on a space', () => {
  it('posts on a node, a page, a table cell and on nothing; reads back in both formats', async () => {
    const s = await space();
    const base = `/v1/spaces/${s.id}`;
    const revision = (await api('GET', base, org.adminToken)).body.revision;

    const onNode = await post(base, alice.token, { page: s.guide, node: 'configure', ...say('Which **options**?') });
    assertMatchesSpec('POST', '/spaces/{spaceId}/comments', 200, onNode);
    expect(onNode).toMatchObject({
      object: 'comment',
      postedBy: { object: 'user', id: alice.userId, displayName: 'Alice' },
      body: { markdown: 'Which **options**?' },
      replies: 0,
      repliers: [],
      reactions: [],
      status: 'open',
      target: {
        space: s.id,
        revision,
        node: { id: 'configure', preview: 'Configure' },
        page: { id: s.guide, title: 'Guide', path: 'guide', outdated: false },
      },
      permissions: { view: true, edit: true, reply: true, delete: true },
      urls: { location: `${t.baseUrl}/v1/spaces/${s.id}/comments/${onNode.id}` },
    });
    expect(onNode.target.changeRequest).toBeUndefined();
    expect(onNode.editedAt).toBeUndefined();
    expect(onNode.resolvedAt).toBeUndefined();
    expect(Date.parse(onNode.target.page.updatedAt)).toBeLessThanOrEqual(Date.parse(onNode.postedAt));

    const onCell = await post(base, bob.token, {
      page: s.guide,
      tableCell: { record: 'row-1', definition: 'col-price' },
      ...say('Price is wrong'),
    });
    expect(onCell.target).toMatchObject({ tableCell: { record: 'row-1', definition: 'col-price' }, page: { id: s.guide } });
    expect(onCell.target.node).toBeUndefined();
    const onPage = await post(base, bob.token, { page: s.guide, ...say('Nice page') });
    expect(onPage.target.page.id).toBe(s.guide);
    const onNothing = await post(base, alice.token, say('General remark'));
    expect(onNothing.target).toEqual({ space: s.id, revision });
    // A node that is not a heading of the page keeps its id and has no preview.
    const unknownNode = await post(base, alice.token, { page: s.guide, node: 'no-such-block', ...say('Here') });
    expect(unknownNode.target.node).toEqual({ id: 'no-such-block' });

    // urls.location is the comment.
    const loc = await fetch(onNode.urls.location, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(loc.status).toBe(200);
    expect((await loc.json()).id).toBe(onNode.id);

    const got = await api('GET', `${base}/comments/${onNode.id}`, bob.token);
    expect(got.status).toBe(200);
    assertMatchesSpec('GET', '/spaces/{spaceId}/comments/{commentId}', 200, got.body);
    expect(got.body).toMatchObject({
      id: onNode.id,
      body: { markdown: 'Which **options**?' },
      permissions: { edit: false, reply: true, delete: false },
    });
    const asDoc = await api('GET', `${base}/comments/${onNode.id}?format=document`, bob.token);
    expect(asDoc.status).toBe(200);
    assertMatchesSpec('GET', '/spaces/{spaceId}/comments/{commentId}', 200, asDoc.body);
    expect(asDoc.body.body.markdown).toBeUndefined();
    expect(asDoc.body.body.document.object).toBe('document');
    expect(JSON.stringify(asDoc.body.body.document)).toContain('options');
    expect(JSON.stringify(asDoc.body.body.document)).toContain('"bold"');
    expect((await api('GET', `${base}/comments/${onNode.id}?format=html`, bob.token)).status).toBe(400);

    // A comment may be posted as a JSON document too.
    const fromDoc = await post(base, alice.token, { body: asDoc.body.body });
    expect(fromDoc.body.markdown).toContain('**options**');
    // ... and as the document itself, which is the public description's `body: Document` (what the
    // official client sends); a reply too.
    const bare = await post(base, alice.token, { body: asDoc.body.body.document });
    expect(bare.body.markdown).toContain('**options**');
    const bareReply = await api('POST', `${base}/comments/${bare.id}/replies`, bob.token, { body: asDoc.body.body.document });
    expect(bareReply.status, JSON.stringify(bareReply.body)).toBe(200);
    expect(bareReply.body.body.markdown).toContain('**options**');
    const notADoc = await api('POST', `${base}/comments`, alice.token, { body: { object: 'block', nodes: [] } });
    expect(notADoc.status).toBe(400);
    expect(notADoc.body.error.code).toBe(400);

    expect(await spaceCounter(s.id)).toBe(7);
    expect((await api('GET', `${base}/comments/doesNotExist`, bob.token)).status).toBe(404);
  });

  it('refuses a target page missing from the content, an empty body and unknown fields, naming the field', async () => {
    const s = await space();
    const base = `/v1/spaces/${s.id}`;
    for (const [body, field] of [
      [{ page: 'noSuchPage', ...say('x') }, 'body.page'],
      [{ page: s.guide }, 'body.body'],
      [say('   '), 'body.body'],
      [{ ...say('x'), tableCell: { record: 'r' } }, 'body.tableCell.definition'],
      [{ ...say('x'), color: 'red' }, 'color'],
    ] as const) {
      const r = await api('POST', `${base}/comments`, alice.token, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.message).toContain(field);
    }
    expect(await spaceCounter(s.id)).toBe(0);
  });

  it('lists with every filter, both orders and keyset pages', async () => {
    const s = await space();
    const base = `/v1/spaces/${s.id}`;
    let other = '';
    await editContent(t, s.id, (d) => {
      other = d.insertPage(null, { title: 'Other', markdown: 'Text' });
    });
    const c1 = await post(base, alice.token, { page: s.guide, ...say('one') });
    const c2 = await post(base, bob.token, { page: other, ...say('two') });
    const c3 = await post(base, alice.token, say('three'));
    const c4 = await post(base, rita.token, { page: s.guide, ...say('four') });
    expect((await api('PUT', `${base}/comments/${c2.id}`, rita.token, { resolved: true })).status).toBe(200);

    const list = async (query: string, token = reader.token) => {
      const r = await api('GET', `${base}/comments${query}`, token);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      assertMatchesSpec('GET', '/spaces/{spaceId}/comments', 200, r.body);
      return r.body;
    };
    const all = await list('');
    expect(ids(all)).toEqual([c4.id, c3.id, c2.id, c1.id]);
    expect(all.count).toBe(4);
    expect(ids(await list('?order=desc'))).toEqual([c4.id, c3.id, c2.id, c1.id]);
    expect(ids(await list('?order=asc'))).toEqual([c1.id, c2.id, c3.id, c4.id]);
    expect(ids(await list('?status=all'))).toEqual([c4.id, c3.id, c2.id, c1.id]);
    const open = await list('?status=open');
    expect(ids(open)).toEqual([c4.id, c3.id, c1.id]);
    expect(open.count).toBe(3);
    expect(ids(await list('?status=resolved'))).toEqual([c2.id]);
    expect(ids(await list(`?targetPage=${s.guide}`))).toEqual([c4.id, c1.id]);
    expect(ids(await list(`?targetPage=${s.guide}&order=asc`))).toEqual([c1.id, c4.id]);
    expect(ids(await list(`?authors=${alice.userId}`))).toEqual([c3.id, c1.id]);
    expect(ids(await list(`?authors=${alice.userId},${bob.userId}`))).toEqual([c3.id, c2.id, c1.id]);
    // Repeated keys, as the official client sends arrays.
    expect(ids(await list(`?authors=${alice.userId}&authors=${bob.userId}`))).toEqual([c3.id, c2.id, c1.id]);
    expect(ids(await list(`?authors=${bob.userId}&status=open`))).toEqual([]);
    const combined = await list(`?authors=${alice.userId},${rita.userId}&status=open&targetPage=${s.guide}&order=asc`);
    expect(ids(combined)).toEqual([c1.id, c4.id]);
    expect(combined.count).toBe(2);

    // Keyset pages in both directions; a comment posted between page reads does not shift them.
    const p1 = await list('?limit=2&order=asc');
    expect(ids(p1)).toEqual([c1.id, c2.id]);
    expect(p1.count).toBe(4);
    const c5 = await post(base, bob.token, say('five'));
    const p2 = await list(`?limit=2&order=asc&page=${p1.next.page}`);
    expect(ids(p2)).toEqual([c3.id, c4.id]);
    const p3 = await list(`?limit=2&order=asc&page=${p2.next.page}`);
    expect(ids(p3)).toEqual([c5.id]);
    expect(p3.next).toBeUndefined();
    const d1 = await list('?limit=3');
    const d2 = await list(`?limit=3&page=${d1.next.page}`);
    expect([...ids(d1), ...ids(d2)]).toEqual([c5.id, c4.id, c3.id, c2.id, c1.id]);

    const docs = await list('?format=document&limit=1');
    expect(docs.items[0].body.document.object).toBe('document');

    for (const [query, field] of [
      ['?order=up', 'query.order'],
      ['?status=closed', 'query.status'],
      ['?authors=bad%20id', 'query.authors'],
      ['?format=pdf', 'query.format'],
      ['?page=garbage', 'query.page'],
    ]) {
      const r = await api('GET', `${base}/comments${query}`, reader.token);
      expect(r.status, query).toBe(400);
      expect(r.body.error.message).toContain(field);
    }
  });

  it('lets only the author edit the body; resolves and reopens with resolvedBy/resolvedAt; keeps the counter true', async () => {
    const s = await space();
    const base = `/v1/spaces/${s.id}`;
    const c = await post(base, alice.token, say('Typo here'));
    expect(await spaceCounter(s.id)).toBe(1);
    const path = `${base}/comments/${c.id}`;

    for (const token of [bob.token, rita.token, org.adminToken]) {
      const r = await api('PUT', path, token, { body: { markdown: 'hijacked' } });
      expect(r.status).toBe(403);
    }
    expect((await api('PUT', path, reader.token, { body: { markdown: 'hijacked' } })).status).toBe(403);
    const edited = await api('PUT', path, alice.token, { body: { markdown: 'Typo on line 3' } });
    expect(edited.status).toBe(200);
    assertMatchesSpec('PUT', '/spaces/{spaceId}/comments/{commentId}', 200, edited.body);
    expect(edited.body.body.markdown).toBe('Typo on line 3');
    expect(Date.parse(edited.body.editedAt)).toBeGreaterThanOrEqual(Date.parse(c.postedAt));
    expect((await api('GET', path, bob.token)).body.body.markdown).toBe('Typo on line 3');

    // A commenter who is not the author cannot resolve; the refusal changes nothing.
    const refused = await api('PUT', path, bob.token, { resolved: true, addedReactions: ['👍'] });
    expect(refused.status).toBe(403);
    const still = (await api('GET', path, bob.token)).body;
    expect(still.status).toBe('open');
    expect(still.reactions).toEqual([]);

    const resolved = await api('PUT', path, rita.token, { resolved: true });
    expect(resolved.status).toBe(200);
    assertMatchesSpec('PUT', '/spaces/{spaceId}/comments/{commentId}', 200, resolved.body);
    expect(resolved.body).toMatchObject({ status: 'resolved', resolvedBy: { id: rita.userId } });
    expect(Date.parse(resolved.body.resolvedAt)).toBeGreaterThanOrEqual(Date.parse(c.postedAt));
    // Resolving is not an edit of the text.
    expect(resolved.body.editedAt).toBe(edited.body.editedAt);
    expect(await spaceCounter(s.id)).toBe(0);

    // Resolving again keeps the first resolution.
    const again = await api('PUT', path, alice.token, { resolved: true });
    expect(again.body).toMatchObject({ status: 'resolved', resolvedBy: { id: rita.userId }, resolvedAt: resolved.body.resolvedAt });

    // The author reopens.
    const reopened = await api('PUT', path, alice.token, { resolved: false });
    expect(reopened.status).toBe(200);
    assertMatchesSpec('PUT', '/spaces/{spaceId}/comments/{commentId}', 200, reopened.body);
    expect(reopened.body.status).toBe('open');
    expect(reopened.body.resolvedAt).toBeUndefined();
    expect(reopened.body.resolvedBy).toBeUndefined();
    expect(await spaceCounter(s.id)).toBe(1);

    // The author resolves their own comment too.
    expect((await api('PUT', path, alice.token, { resolved: true })).body).toMatchObject({
      status: 'resolved',
      resolvedBy: { id: alice.userId },
    });
    expect(await spaceCounter(s.id)).toBe(0);
    expect((await api('PUT', path, alice.token, { resolved: false })).body.status).toBe('open');

    expect((await api('DELETE', path, alice.token)).status).toBe(204);
    expect(await spaceCounter(s.id)).toBe(0);
    expect((await api('GET', path, alice.token)).status).toBe(404);
    expect((await api('PUT', path, alice.token, { resolved: true })).status).toBe(404);
  });

  it('counts reactions per emoji, once per user, and removes only the caller’s own', async () => {
    const s = await space();
    const base = `/v1/spaces/${s.id}`;
    const c = await post(base, alice.token, say('Ship it?'));
    const path = `${base}/comments/${c.id}`;
    const react = async (token: string, body: Record<string, unknown>) => {
      const r = await api('PUT', path, token, body);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      assertMatchesSpec('PUT', '/spaces/{spaceId}/comments/{commentId}', 200, r.body);
      return r.body.reactions as { emoji: string; count: number; users: { user: { id: string }; reactedAt: string }[] }[];
    };
    await react(alice.token, { addedReactions: ['👍', '🎉'] });
    await react(bob.token, { addedReactions: ['👍'] });
    await react(org.adminToken, { addedReactions: ['👍'] });
    // Adding twice (even twice in one request) is the same as once.
    let reactions = await react(alice.token, { addedReactions: ['👍', '👍'] });
    const summary = (rs: typeof reactions) => rs.map((r) => ({ emoji: r.emoji, count: r.count, users: r.users.map((u) => u.user.id) }));
    expect(summary(reactions)).toEqual([
      { emoji: '👍', count: 3, users: [alice.userId, bob.userId, org.adminId] },
      { emoji: '🎉', count: 1, users: [alice.userId] },
    ]);
    expect(reactions[0].users.every((u) => !Number.isNaN(Date.parse(u.reactedAt)))).toBe(true);
    // A reader cannot react.
    expect((await api('PUT', path, reader.token, { addedReactions: ['👎'] })).status).toBe(403);
    // Removing a reaction one never added is harmless and leaves the others' alone.
    reactions = await react(bob.token, { removedReactions: ['🎉', '🚀'] });
    expect(summary(reactions)[1]).toEqual({ emoji: '🎉', count: 1, users: [alice.userId] });
    reactions = await react(alice.token, { removedReactions: ['👍'] });
    // Emojis come in the order of their earliest remaining reaction: 🎉 (Alice) now precedes 👍 (Bob).
    expect(summary(reactions)).toEqual([
      { emoji: '🎉', count: 1, users: [alice.userId] },
      { emoji: '👍', count: 2, users: [bob.userId, org.adminId] },
    ]);
    reactions = await react(alice.token, { removedReactions: ['🎉'] });
    expect(summary(reactions)).toEqual([{ emoji: '👍', count: 2, users: [bob.userId, org.adminId] }]);
    // The list shows the same.
    const listed = await api('GET', `${base}/comments`, reader.token);
    expect(summary(listed.body.items[0].reactions)).toEqual([{ emoji: '👍', count: 2, users: [bob.userId, org.adminId] }]);
    // Reactions do not touch the body's edit time.
    expect(listed.body.items[0].editedAt).toBeUndefined();
    expect((await api('PUT', path, bob.token, { addedReactions: [''] })).status).toBe(400);
  });

  it('posts, lists, edits, reacts to and deletes replies', async () => {
    const s = await space();
    const base = `/v1/spaces/${s.id}`;
    const c = await post(base, alice.token, say('Question'));
    const replies = `${base}/comments/${c.id}/replies`;

    const r1 = await api('POST', replies, bob.token, say('Answer'));
    expect(r1.status).toBe(200);
    assertMatchesSpec('POST', '/spaces/{spaceId}/comments/{commentId}/replies', 200, r1.body);
    expect(r1.body).toMatchObject({
      object: 'comment-reply',
      postedBy: { id: bob.userId },
      body: { markdown: 'Answer' },
      reactions: [],
      permissions: { view: true, edit: true, reply: true, delete: true },
      urls: { location: `${t.baseUrl}/v1/spaces/${s.id}/comments/${c.id}/replies/${r1.body.id}` },
    });
    const r2 = (await api('POST', replies, alice.token, say('Thanks'))).body;
    const r3 = (await api('POST', replies, bob.token, say('You are welcome'))).body;
    expect((await api('POST', replies, reader.token, say('me too'))).status).toBe(403);
    expect((await api('POST', replies, bob.token, say(''))).status).toBe(400);
    expect((await api('POST', `${base}/comments/nope/replies`, bob.token, say('x'))).status).toBe(404);

    const comment = (await api('GET', `${base}/comments/${c.id}`, reader.token)).body;
    expect(comment.replies).toBe(3);
    expect(comment.repliers.map((r: any) => [r.user.id, r.count])).toEqual([
      [bob.userId, 2],
      [alice.userId, 1],
    ]);
    expect(comment.repliers[0].updatedAt).toBe(r3.postedAt);
    assertMatchesSchema('Comment', comment);

    // The public description lists replies on the space base too.
    const listed = await api('GET', `${replies}?limit=2`, reader.token);
    expect(listed.status).toBe(200);
    assertMatchesSpec('GET', '/spaces/{spaceId}/comments/{commentId}/replies', 200, listed.body);
    expect(ids(listed.body)).toEqual([r1.body.id, r2.id]);
    expect(listed.body.count).toBe(3);
    expect(listed.body.items[0].permissions).toEqual({ view: true, edit: false, reply: false, delete: false });
    const rest = await api('GET', `${replies}?limit=2&page=${listed.body.next.page}`, reader.token);
    expect(ids(rest.body)).toEqual([r3.id]);

    const one = `${replies}/${r1.body.id}`;
    const got = await api('GET', `${one}?format=document`, alice.token);
    expect(got.status).toBe(200);
    assertMatchesSpec('GET', '/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', 200, got.body);
    expect(got.body.body.document.object).toBe('document');
    expect(got.body.permissions).toEqual({ view: true, edit: false, reply: true, delete: false });

    expect((await api('PUT', one, alice.token, { body: { markdown: 'edited by someone else' } })).status).toBe(403);
    const edited = await api('PUT', one, bob.token, { body: { markdown: 'Better answer' }, addedReactions: ['✅'] });
    expect(edited.status).toBe(200);
    assertMatchesSpec('PUT', '/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', 200, edited.body);
    expect(edited.body.body.markdown).toBe('Better answer');
    expect(edited.body.editedAt).toBeDefined();
    const reacted = await api('PUT', one, alice.token, { addedReactions: ['✅', '❤️'] });
    expect(reacted.body.reactions.map((r: any) => [r.emoji, r.count])).toEqual([
      ['✅', 2],
      ['❤️', 1],
    ]);
    // Replies on the space base cannot be resolved (only the change request base accepts it).
    const noResolve = await api('PUT', one, bob.token, { resolved: true });
    expect(noResolve.status).toBe(400);
    expect(noResolve.body.error.message).toContain('resolved');

    expect((await api('DELETE', one, alice.token)).status).toBe(403);
    expect((await api('DELETE', one, reader.token)).status).toBe(403);
    expect((await api('DELETE', one, bob.token)).status).toBe(204);
    expect((await api('GET', one, bob.token)).status).toBe(404);
    expect((await api('DELETE', one, bob.token)).status).toBe(204);
    const { rows } = await t.app.db.query('SELECT count(*) AS n FROM comment_reactions WHERE target_id = $1', [r1.body.id]);
    expect(rows[0].n).toBe(0);
    // A space-level admin deletes anyone's reply.
    expect((await api('DELETE', `${replies}/${r2.id}`, org.adminToken)).status).toBe(204);
    const after = (await api('GET', `${base}/comments/${c.id}`, reader.token)).body;
    expect(after.replies).toBe(1);
    expect(after.repliers.map((r: any) => [r.user.id, r.count])).toEqual([[bob.userId, 1]]);
  });

  it('describes a page target as outdated once the page changed after the comment, or is gone', async () => {
    const s = await space();
    const base = `/v1/spaces/${s.id}`;
    const c = await post(base, alice.token, { page: s.guide, node: 'setup', ...say('Outdated soon') });
    expect(c.target.page.outdated).toBe(false);
    expect(c.target.node.preview).toBe('Setup');
    const rev = await editContent(t, s.id, (d) => d.updatePage(s.guide, { title: 'Guide v2', markdown: '# Install\n\nNew text.\n' }));
    const got = (await api('GET', `${base}/comments/${c.id}`, alice.token)).body;
    expect(got.target.page).toMatchObject({ id: s.guide, title: 'Guide v2', outdated: true });
    expect(got.target.revision).toBe(rev.id);
    // The heading the comment was on is gone: no preview any more.
    expect(got.target.node).toEqual({ id: 'setup' });
    // A comment posted after the edit is up to date.
    const fresh = await post(base, alice.token, { page: s.guide, ...say('Fresh') });
    expect(fresh.target.page.outdated).toBe(false);
    await editContent(t, s.id, (d) => {
      d.deletePage(s.guide);
    });
    const gone = (await api('GET', `${base}/comments/${fresh.id}`, alice.token)).body;
    expect(gone.target.page).toEqual({ id: s.guide, outdated: true });
    assertMatchesSchema('Comment', gone);
  });

  it('deletes: the author or a space admin; replies and reactions go with the comment; absent is 204', async () => {
    const s = await space();
    const base = `/v1/spaces/${s.id}`;
    const c = await post(base, alice.token, say('Delete me'));
    const path = `${base}/comments/${c.id}`;
    const reply = (await api('POST', `${path}/replies`, bob.token, say('reply'))).body;
    await api('PUT', path, bob.token, { addedReactions: ['👀'] });
    await api('PUT', `${path}/replies/${reply.id}`, alice.token, { addedReactions: ['👀'] });

    expect((await api('DELETE', path, bob.token)).status).toBe(403);
    expect((await api('DELETE', path, rita.token)).status).toBe(403);
    expect((await api('DELETE', path, reader.token)).status).toBe(403);
    // A member with the comment role who is admin of this space (explicit grant) may delete it.
    const spaceAdmin = await t.seedUser(org.orgId, 'comment', 'Space admin');
    await setSpaceMember(t.app.db, s.id, spaceAdmin.userId, 'admin');
    const seen = (await api('GET', path, spaceAdmin.token)).body;
    expect(seen.permissions).toEqual({ view: true, edit: false, reply: true, delete: true });
    expect((await api('GET', path, bob.token)).body.permissions).toEqual({ view: true, edit: false, reply: true, delete: false });
    expect((await api('GET', path, reader.token)).body.permissions).toEqual({ view: true, edit: false, reply: false, delete: false });
    expect(await spaceCounter(s.id)).toBe(1);

    expect((await api('DELETE', path, spaceAdmin.token)).status).toBe(204);
    expect((await api('GET', path, alice.token)).status).toBe(404);
    expect((await api('GET', `${path}/replies/${reply.id}`, alice.token)).status).toBe(404);
    const left = await t.app.db.query(
      `SELECT (SELECT count(*) FROM comment_replies WHERE comment_id = $1) AS replies,
              (SELECT count(*) FROM comment_reactions WHERE target_id = ANY($2::text[])) AS reactions`,
      [c.id, [c.id, reply.id]],
    );
    expect(left.rows[0]).toEqual({ replies: 0, reactions: 0 });
    expect(await spaceCounter(s.id)).toBe(0);
    expect((await api('DELETE', path, alice.token)).status).toBe(204);
    expect((await api('DELETE', `${base}/comments/neverExisted`, alice.token)).status).toBe(204);
  });

  it('hides everything from those who cannot see the space and refuses readers any change', async () => {
    const s = await space();
    const base = `/v1/spaces/${s.id}`;
    const c = await post(base, alice.token, say('Visible to members'));
    for (const [method, path, body] of [
      ['GET', `${base}/comments`, undefined],
      ['POST', `${base}/comments`, say('x')],
      ['GET', `${base}/comments/${c.id}`, undefined],
      ['PUT', `${base}/comments/${c.id}`, { addedReactions: ['👍'] }],
      ['DELETE', `${base}/comments/${c.id}`, undefined],
      ['GET', `${base}/comments/${c.id}/replies`, undefined],
      ['POST', `${base}/comments/${c.id}/replies`, say('x')],
      ['GET', `${base}/commenters`, undefined],
    ] as const) {
      const r = await api(method, path, outsider.token, body);
      expect(r.status, `${method} ${path}`).toBe(404);
    }
    expect((await t.api('GET', `${base}/comments`, {})).status).toBe(401);
    expect((await api('GET', `${base}/comments`, reader.token)).status).toBe(200);
    const denied = await api('POST', `${base}/comments`, reader.token, say('x'));
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe(403);
    expect(await spaceCounter(s.id)).toBe(1);
    expect((await api('GET', `/v1/spaces/noSuchSpace/comments`, alice.token)).status).toBe(404);
  });

  it('lists commenters (comment or reply authors) as members, in the order they took part', async () => {
    const s = await space();
    const base = `/v1/spaces/${s.id}`;
    const empty = await api('GET', `${base}/commenters`, reader.token);
    expect(empty.body).toEqual({ items: [], count: 0 });
    const c = await post(base, bob.token, say('first'));
    await api('POST', `${base}/comments/${c.id}/replies`, rita.token, say('reply'));
    await post(base, alice.token, say('second'));
    await post(base, bob.token, say('third'));
    const r = await api('GET', `${base}/commenters`, reader.token);
    expect(r.status).toBe(200);
    assertMatchesSpec('GET', '/spaces/{spaceId}/commenters', 200, r.body);
    expect(r.body.items.map((m: any) => m.user.id)).toEqual([bob.userId, rita.userId, alice.userId]);
    expect(r.body.items[0]).toMatchObject({ object: 'member', id: bob.userId, role: 'comment' });
    expect(r.body.count).toBe(3);
    const p1 = await api('GET', `${base}/commenters?limit=2`, reader.token);
    const p2 = await api('GET', `${base}/commenters?limit=2&page=${p1.body.next.page}`, reader.token);
    expect([...p1.body.items, ...p2.body.items].map((m: any) => m.id)).toEqual([bob.userId, rita.userId, alice.userId]);
    expect(p2.body.next).toBeUndefined();
  });
});

describe('comments on a change request', () => {
  it('lives apart from the space’s comments, targets the change request’s content and keeps both counters true', async () => {
    const s = await space();
    const cr = await changeRequest(s.id);
    const added = await api('POST', `/v1/spaces/${s.id}/change-requests/${cr.id}/content?compat=false`, org.adminToken, {
      changes: [{ operation: 'insert_page', title: 'Draft page', document: { markdown: '## Details\n\nTo review.' } }],
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const draftPage = added.body.changes[0].page.id as string;
    const crRevision = added.body.changeRequest.revision as string;
    // Addressed by number as well as by id.
    const byNumber = `/v1/spaces/${s.id}/change-requests/${cr.number}`;
    const byId = `/v1/spaces/${s.id}/change-requests/${cr.id}`;

    const c = await post(byNumber, alice.token, { page: draftPage, node: 'details', ...say('Needs an example') });
    assertMatchesSpec('POST', '/spaces/{spaceId}/change-requests/{changeRequestId}/comments', 200, c);
    expect(c).toMatchObject({
      target: {
        space: s.id,
        changeRequest: cr.id,
        revision: crRevision,
        page: { id: draftPage, title: 'Draft page', outdated: false },
        node: { id: 'details', preview: 'Details' },
      },
      urls: { location: `${t.baseUrl}/v1/spaces/${s.id}/change-requests/${cr.id}/comments/${c.id}` },
      status: 'open',
    });
    // The page exists only in the change request: not a valid target on main.
    const onMain = await api('POST', `/v1/spaces/${s.id}/comments`, alice.token, { page: draftPage, ...say('x') });
    expect(onMain.status).toBe(400);
    expect(onMain.body.error.message).toContain('body.page');
    const mainComment = await post(`/v1/spaces/${s.id}`, alice.token, say('On main'));

    expect(await crCounter(s.id, cr.id)).toBe(1);
    expect(await spaceCounter(s.id)).toBe(1);
    // Each base sees only its own comments.
    expect(ids((await api('GET', `${byId}/comments`, reader.token)).body)).toEqual([c.id]);
    expect(ids((await api('GET', `/v1/spaces/${s.id}/comments`, reader.token)).body)).toEqual([mainComment.id]);
    expect((await api('GET', `/v1/spaces/${s.id}/comments/${c.id}`, reader.token)).status).toBe(404);
    expect((await api('GET', `${byId}/comments/${mainComment.id}`, reader.token)).status).toBe(404);
    expect((await api('DELETE', `/v1/spaces/${s.id}/comments/${c.id}`, alice.token)).status).toBe(204);
    expect(await crCounter(s.id, cr.id)).toBe(1); // that delete was on the wrong base: nothing removed
    expect((await api('GET', `/v1/spaces/${s.id}/change-requests/99/comments`, reader.token)).status).toBe(404);

    const got = await api('GET', `${byId}/comments/${c.id}?format=document`, reader.token);
    assertMatchesSpec('GET', '/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}', 200, got.body);
    expect(got.body.body.document.object).toBe('document');

    // Filters on this base.
    const c2 = await post(byId, bob.token, say('Second'));
    const listed = await api('GET', `${byId}/comments?order=asc&authors=${bob.userId}`, reader.token);
    assertMatchesSpec('GET', '/spaces/{spaceId}/change-requests/{changeRequestId}/comments', 200, listed.body);
    expect(ids(listed.body)).toEqual([c2.id]);
    expect(ids((await api('GET', `${byId}/comments?targetPage=${draftPage}`, reader.token)).body)).toEqual([c.id]);
    expect(await crCounter(s.id, cr.id)).toBe(2);

    // A commenter who is neither the author, a reviewer nor the change request's creator may not resolve.
    expect((await api('PUT', `${byId}/comments/${c.id}`, bob.token, { resolved: true })).status).toBe(403);
    const resolved = await api('PUT', `${byId}/comments/${c.id}`, org.adminToken, { resolved: true });
    assertMatchesSpec('PUT', '/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}', 200, resolved.body);
    expect(resolved.body).toMatchObject({ status: 'resolved', resolvedBy: { id: org.adminId } });
    expect(await crCounter(s.id, cr.id)).toBe(1);
    expect(ids((await api('GET', `${byId}/comments?status=resolved`, reader.token)).body)).toEqual([c.id]);
    expect((await api('PUT', `${byId}/comments/${c.id}`, alice.token, { resolved: false })).body.status).toBe('open');
    expect(await crCounter(s.id, cr.id)).toBe(2);
    expect(await spaceCounter(s.id)).toBe(1);

    expect((await api('DELETE', `${byId}/comments/${c2.id}`, alice.token)).status).toBe(403);
    expect((await api('DELETE', `${byId}/comments/${c2.id}`, bob.token)).status).toBe(204);
    expect(await crCounter(s.id, cr.id)).toBe(1);
  });

  it('lets the change request’s creator resolve comments on it', async () => {
    const s = await space();
    const editor = await t.seedUser(org.orgId, 'edit', 'Eddie');
    const created = await api('POST', `/v1/spaces/${s.id}/change-requests`, editor.token, { subject: 'Mine' });
    expect(created.status).toBe(201);
    const base = `/v1/spaces/${s.id}/change-requests/${created.body.id}`;
    const c = await post(base, alice.token, say('Please fix'));
    const other = await post(`/v1/spaces/${s.id}`, alice.token, say('On main'));
    expect((await api('PUT', `${base}/comments/${c.id}`, editor.token, { resolved: true })).body).toMatchObject({
      status: 'resolved',
      resolvedBy: { id: editor.userId },
    });
    // On main the editor is neither author nor reviewer.
    expect((await api('PUT', `/v1/spaces/${s.id}/comments/${other.id}`, editor.token, { resolved: true })).status).toBe(403);
  });

  it('has replies that are listed, edited, reacted to, resolved and deleted, and commenters of its own', async () => {
    const s = await space();
    const cr = await changeRequest(s.id);
    const base = `/v1/spaces/${s.id}/change-requests/${cr.id}`;
    const c = await post(base, alice.token, say('Thread'));
    const replies = `${base}/comments/${c.id}/replies`;
    const posted: any[] = [];
    for (const [token, text] of [
      [bob.token, 'one'],
      [alice.token, 'two'],
      [bob.token, 'three'],
    ]) {
      const r = await api('POST', replies, token, say(text));
      expect(r.status).toBe(200);
      assertMatchesSpec('POST', '/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies', 200, r.body);
      posted.push(r.body);
    }
    expect(posted[0].urls.location).toBe(
      `${t.baseUrl}/v1/spaces/${s.id}/change-requests/${cr.id}/comments/${c.id}/replies/${posted[0].id}`,
    );
    const page1 = await api('GET', `${replies}?limit=2`, reader.token);
    assertMatchesSpec('GET', '/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies', 200, page1.body);
    expect(ids(page1.body)).toEqual([posted[0].id, posted[1].id]);
    expect(page1.body.count).toBe(3);
    const page2 = await api('GET', `${replies}?limit=2&page=${page1.body.next.page}&format=document`, reader.token);
    expect(ids(page2.body)).toEqual([posted[2].id]);
    expect(page2.body.items[0].body.document.object).toBe('document');

    const one = `${replies}/${posted[0].id}`;
    expect((await api('PUT', one, alice.token, { body: { markdown: 'not mine' } })).status).toBe(403);
    const edited = await api('PUT', one, bob.token, { body: { markdown: 'one, edited' }, addedReactions: ['🙌'] });
    assertMatchesSpec(
      'PUT',
      '/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}',
      200,
      edited.body,
    );
    expect(edited.body).toMatchObject({ body: { markdown: 'one, edited' }, reactions: [{ emoji: '🙌', count: 1 }], status: 'open' });
    expect((await api('PUT', one, alice.token, { addedReactions: ['🙌'] })).body.reactions[0].count).toBe(2);

    // Resolving a reply: its author or a reviewer; another commenter may not.
    expect((await api('PUT', one, alice.token, { resolved: true })).status).toBe(403);
    const resolved = await api('PUT', one, rita.token, { resolved: true });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ status: 'resolved', resolvedBy: { id: rita.userId } });
    assertMatchesSchema('CommentReply', resolved.body);
    const got = await api('GET', one, reader.token);
    assertMatchesSpec(
      'GET',
      '/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}',
      200,
      got.body,
    );
    expect(got.body.status).toBe('resolved');
    expect((await api('PUT', one, bob.token, { resolved: false })).body.status).toBe('open');
    // Resolving a reply does not touch the comment's open count.
    expect(await crCounter(s.id, cr.id)).toBe(1);

    const commenters = await api('GET', `${base}/commenters`, reader.token);
    assertMatchesSpec('GET', '/spaces/{spaceId}/change-requests/{changeRequestId}/commenters', 200, commenters.body);
    expect(commenters.body.items.map((m: any) => m.id)).toEqual([alice.userId, bob.userId]);
    // The space's main content has no commenters yet.
    expect((await api('GET', `/v1/spaces/${s.id}/commenters`, reader.token)).body.count).toBe(0);

    expect((await api('DELETE', `${replies}/${posted[1].id}`, bob.token)).status).toBe(403);
    expect((await api('DELETE', `${replies}/${posted[1].id}`, alice.token)).status).toBe(204);
    expect(ids((await api('GET', replies, reader.token)).body)).toEqual([posted[0].id, posted[2].id]);

    // Deleting the comment takes the replies and their reactions with it.
    expect((await api('DELETE', `${base}/comments/${c.id}`, org.adminToken)).status).toBe(204);
    expect((await api('GET', replies, reader.token)).status).toBe(404);
    expect((await api('GET', one, reader.token)).status).toBe(404);
    expect((await api('DELETE', one, bob.token)).status).toBe(204);
    const { rows } = await t.app.db.query('SELECT count(*) AS n FROM comment_reactions WHERE target_id = ANY($1::text[])', [
      posted.map((p) => p.id),
    ]);
    expect(rows[0].n).toBe(0);
    expect(await crCounter(s.id, cr.id)).toBe(0);
    expect((await api('GET', `${base}/commenters`, reader.token)).body.count).toBe(0);
  });
});
