// The API edge: path ids are ids (no dot segment or encoded slash reaches another route), HEAD for
// every GET, and the 500s that odd inputs and races used to cause.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { rawRequest } from '../../helpers/http.js';
import { editContent } from '../../helpers/content.js';
import { seedRouteIds } from '../../helpers/route-ids.js';
import { apiRoutes } from '../../../src/routes/index.js';

const { t, org } = useTestApp({ seedOrg: true });
/** A real id for every path parameter name, so that only the tampered segment is wrong. */
const ids: Record<string, string> = {};

const auth = () => ({ authorization: `Bearer ${org.adminToken}` });
const raw = (method: string, path: string, body?: unknown) =>
  rawRequest(t.baseUrl, method, path, {
    headers: { ...auth(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

beforeAll(async () => {
  Object.assign(ids, await seedRouteIds(t, org));
});

const TAMPERED = ['..', '.', '%2e%2e', '%2E.', '.%2e', '%2e', 'a%2Fb', 'a%2fb%2f..', '..%2F..', '%2F', 'a\\b'];

describe('path ids are ids', () => {
  it('never lets a dot segment or an encoded slash in any id segment reach another route', async () => {
    let checked = 0;
    for (const r of apiRoutes) {
      const names = [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
      for (const name of names) {
        for (const bad of TAMPERED) {
          const path = r.path.replace(/:(\w+)/g, (_, n: string) => (n === name ? bad : (ids[n] ?? 'x')));
          const res = await raw(r.method, path, r.method === 'GET' || r.method === 'DELETE' ? undefined : {});
          const what = `${r.method} ${path} -> ${res.status} ${res.text.slice(0, 200)}`;
          expect([400, 404], what).toContain(res.status);
          expect(res.body?.error?.code, what).toBe(res.status);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(500);
  });

  it('leaves the parent unchanged: DELETE comments/.., PUT replies/.. and change-requests/../comments', async () => {
    const { spaceId, commentId, changeRequestId } = ids;
    for (const bad of ['..', '%2e%2e', '%2E%2E', '.%2E']) {
      expect((await raw('DELETE', `/v1/spaces/${spaceId}/comments/${bad}`)).status).toBe(404);
      expect(
        (await raw('PUT', `/v1/spaces/${spaceId}/comments/${commentId}/replies/${bad}`, { body: { markdown: 'Hijacked' } })).status,
      ).toBe(404);
      expect(
        (await raw('POST', `/v1/spaces/${spaceId}/change-requests/${bad}/comments`, { body: { markdown: 'Posted on main?' } })).status,
      ).toBe(404);
      expect(
        (await raw('POST', `/v1/spaces/${spaceId}/change-requests/${changeRequestId}/${bad}/comments`, { body: { markdown: 'x' } })).status,
      ).toBe(404);
    }
    // The space is alive, the comment unchanged, and main got no comment.
    const space = await t.api('GET', `/v1/spaces/${spaceId}`, { token: org.adminToken });
    expect(space.status).toBe(200);
    const comment = await t.api('GET', `/v1/spaces/${spaceId}/comments/${commentId}`, { token: org.adminToken });
    expect(comment.body.body.markdown).toBe('Hello');
    const list = await t.api('GET', `/v1/spaces/${spaceId}/comments`, { token: org.adminToken });
    expect(list.body.items.map((c: { body: { markdown: string } }) => c.body.markdown)).toEqual(['Hello']);
  });

  it('refuses malformed percent-encoding, NUL bytes and targets that are not paths with 400', async () => {
    for (const path of [`/v1/spaces/%zz`, `/v1/spaces/${ids.spaceId}%00`, `/v1/orgs/%`]) {
      const res = await raw('GET', path);
      expect(res.status, path).toBe(400);
      expect(res.body.error.code).toBe(400);
    }
    const absolute = await raw('GET', `http://evil.example/v1/spaces/${ids.spaceId}`);
    expect(absolute.status).toBe(400);
  });

  it('serves a published page path with a literal percent sign (decoded once) without a 500', async () => {
    await t.api('PATCH', `/v1/spaces/${ids.spaceId}`, { token: org.adminToken, body: { visibility: 'public' } });
    for (const tail of ['%25', '%2525', 'a%25b', '%E2%82%AC', '100%25-sure']) {
      const res = await rawRequest(t.baseUrl, 'GET', `/s/${ids.spaceId}/${tail}`);
      expect(res.status, tail).toBe(404);
    }
    const ok = await rawRequest(t.baseUrl, 'GET', `/s/${ids.spaceId}/guide`);
    expect(ok.status).toBe(200);
    await t.api('PATCH', `/v1/spaces/${ids.spaceId}`, { token: org.adminToken, body: { visibility: 'private' } });
  });
});

describe('HEAD', () => {
  it('answers HEAD for every GET route with the GET status and headers and no body', async () => {
    const gets = apiRoutes.filter((r) => r.method === 'GET' && !r.path.includes('*'));
    for (const r of gets) {
      const path = r.path.replace(/:(\w+)/g, (_, n: string) => ids[n] ?? 'x');
      const get = await raw('GET', path);
      const head = await raw('HEAD', path);
      expect(head.status, `HEAD ${path}`).toBe(get.status);
      expect(head.text).toBe('');
      expect(head.headers['content-type']).toBe(get.headers['content-type']);
      if (get.headers['content-length'] && !get.headers['transfer-encoding']) {
        expect(head.headers['content-length'], `HEAD ${path}`).toBe(get.headers['content-length']);
      }
    }
    const health = await rawRequest(t.baseUrl, 'HEAD', '/healthz');
    expect(health.status).toBe(200);
    expect(Number(health.headers['content-length'])).toBeGreaterThan(0);
  });

  it('lists HEAD in Allow when GET is allowed', async () => {
    const res = await raw('DELETE', `/v1/orgs/${org.orgId}`);
    expect(res.status).toBe(405);
    expect(String(res.headers.allow)).toContain('HEAD');
  });
});

describe('no 5xx from races and odd content', () => {
  it('answers 404, not 500, when a template is applied to a space deleted meanwhile', async () => {
    for (let i = 0; i < 5; i++) {
      const s = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: `Race ${i}` } });
      const [applied, deleted] = await Promise.all([
        t.api('POST', `/v1/spaces/${s.body.id}/content/template`, { token: org.adminToken, body: { id: 'product-docs' } }),
        t.api('DELETE', `/v1/spaces/${s.body.id}`, { token: org.adminToken }),
      ]);
      expect(deleted.status).toBe(204);
      expect([204, 404], JSON.stringify(applied.body)).toContain(applied.status);
    }
  });

  it('soft-deletes under concurrent calls without a 500', async () => {
    const spaces = [];
    for (let i = 0; i < 6; i++)
      spaces.push((await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: `Del ${i}` } })).body.id);
    const calls = spaces.flatMap((id) => [1, 2, 3].map(() => t.api('DELETE', `/v1/spaces/${id}`, { token: org.adminToken })));
    const answers = await Promise.all(calls);
    expect(
      answers.filter((r) => r.status !== 204).map((r) => `${r.status} ${r.text}`),
      'every concurrent delete answers 204',
    ).toEqual([]);
    for (const id of spaces) expect((await t.api('GET', `/v1/spaces/${id}`, { token: org.adminToken })).status).toBe(404);
    // Collections too: a delete racing another delete of the same collection answers 204.
    const collections = [];
    for (let i = 0; i < 4; i++) {
      collections.push(
        (await t.api('POST', `/v1/orgs/${org.orgId}/collections`, { token: org.adminToken, body: { title: `C ${i}` } })).body.id,
      );
    }
    const collectionAnswers = await Promise.all(
      collections.flatMap((id) => [1, 2, 3].map(() => t.api('DELETE', `/v1/collections/${id}`, { token: org.adminToken }))),
    );
    expect(collectionAnswers.filter((r) => r.status !== 204).map((r) => `${r.status} ${r.text}`)).toEqual([]);
    for (const id of collections) expect((await t.api('GET', `/v1/collections/${id}`, { token: org.adminToken })).status).toBe(404);
  });

  it('duplicates a space while its source is reindexed, without a foreign-key 500', async () => {
    const s = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Source' } });
    await editContent(t, s.body.id, (d) => {
      for (let i = 0; i < 40; i++)
        d.insertPage(null, { title: `Page ${i}`, markdown: `# Page ${i}\n\nalpha beta ${i}\n\n## Part\n\nmore ${i}\n` });
    });
    for (let round = 0; round < 10; round++) {
      // New pages: their index rows appear while the copy runs (sections of a page the copy did not see).
      const edit = editContent(t, s.body.id, (d) => {
        for (let i = 0; i < 30; i++)
          d.insertPage(null, { title: `New ${round}-${i}`, markdown: `# New\n\nnew words ${round}\n\n## A\n\na\n\n## B\n\nb\n` });
      });
      const search = t.api('GET', `/v1/spaces/${s.body.id}/search?query=words`, { token: org.adminToken });
      const dup = t.api('POST', `/v1/spaces/${s.body.id}/duplicate`, { token: org.adminToken });
      const [, searched, duplicated] = await Promise.all([edit, search, dup]);
      expect(searched.status).toBe(200);
      expect(duplicated.status, JSON.stringify(duplicated.body)).toBe(201);
      const copySearch = await t.api('GET', `/v1/spaces/${duplicated.body.id}/search?query=alpha`, { token: org.adminToken });
      expect(copySearch.status).toBe(200);
    }
  });
});
