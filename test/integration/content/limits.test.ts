import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { editContent } from '../../helpers/content.js';
import { withTx } from '../../../src/db/pool.js';
import { editChangeRequestContent, editMainContent } from '../../../src/content/commit.js';

// Hostile Markdown and JSON documents: refused on every write with a 400 naming the limit; when
// stored anyway (older content, imports, the database), read as plain text, bounded, while the
// API keeps answering: /healthz comes back before the hostile request does.

const { t, org } = useTestApp({ seedOrg: true });

const api = (method: string, path: string, body?: unknown) => t.api(method, path, { token: org.adminToken, body });

async function newSpace(title: string, visibility?: string) {
  const r = await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title, empty: true });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  if (visibility) expect((await api('PATCH', `/v1/spaces/${r.body.id}`, { visibility })).status).toBe(200);
  return r.body.id as string;
}

const nested = (levels: number) => Array.from({ length: levels }, (_, i) => `${'  '.repeat(i)}- level ${i + 1}`).join('\n');

/** Each hostile shape, and what the 400 says about it. */
const HOSTILE: Record<string, { md: string; message: RegExp }> = {
  'nested quotes': { md: `${'>'.repeat(50_000)} x`, message: /nesting deeper than 32 levels \(line 1\)$/ },
  'nested lists': { md: nested(40), message: /nesting deeper than 32 levels \(line 33\)$/ },
  'nested brackets': { md: `${'['.repeat(50_000)}x`, message: /links nested deeper than 32 levels \(line 1\)$/ },
  'emphasis runs': {
    md: `${'*'.repeat(50_000)}x${'*'.repeat(50_000)}`,
    message: /emphasis nested deeper than 32 levels \(a run of 50,000 '\*' on line 1\)$/,
  },
  'emphasis markers': { md: '*a '.repeat(20_000), message: /more than 5,000 emphasis and link markers in one paragraph \(line 1\)$/ },
  'many nodes': { md: '- a\n'.repeat(60_000), message: /more than 100,000 nodes$/ },
  'sub-lists ending': { md: '- a\n  - b\n'.repeat(10_000), message: /too complex to parse: too many nested lists and quotes ending/ },
};

/** The shape repeated to about `chars`: stored content that is both hostile and large. */
const big = (md: string, chars = 1_200_000) => `${md}\n\n`.repeat(Math.max(1, Math.ceil(chars / (md.length + 2))));

function expectError(r: { status: number; body: any }, status: number, message: RegExp | string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(Object.keys(r.body)).toEqual(['error']);
  expect(r.body.error.code).toBe(status);
  if (typeof message === 'string') expect(r.body.error.message).toBe(message);
  else expect(r.body.error.message).toMatch(message);
}

/**
 * Start `hostile`, then request /healthz; both must succeed, /healthz first: the hostile request
 * does not hold the event loop (it used to, for seconds).
 */
async function healthzFirst<T>(hostile: () => Promise<T>): Promise<T> {
  const order: string[] = [];
  const pending = hostile().then((r) => {
    order.push('hostile');
    return r;
  });
  const health = await fetch(`${t.baseUrl}/healthz`);
  order.push('healthz');
  expect(health.status).toBe(200);
  const result = await pending;
  expect(order).toEqual(['healthz', 'hostile']);
  return result;
}

describe('writes are held to the content limits', () => {
  it('refuses each hostile Markdown body with a 400 naming the limit, and writes nothing', async () => {
    const s = await newSpace('Writes');
    const c = (await api('POST', `/v1/spaces/${s}/change-requests`, { subject: 'Hostile' })).body;
    const ok = await api('POST', `/v1/spaces/${s}/change-requests/${c.id}/content?compat=false`, {
      changes: [
        { operation: 'insert_page', ref: 'p', title: 'Fine', document: { markdown: `${nested(32)}\n\n${'> '.repeat(32)}deepest allowed` } },
      ],
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const pageId = ok.body.changes[0].page.id;
    const revision = (await api('GET', `/v1/spaces/${s}/change-requests/${c.id}`)).body.revision;
    for (const [name, { md, message }] of Object.entries(HOSTILE)) {
      const insert = await api('POST', `/v1/spaces/${s}/change-requests/${c.id}/content`, {
        changes: [{ operation: 'insert_page', title: name, document: { markdown: md } }],
      });
      expectError(insert, 400, new RegExp(`^Invalid request: body\\.changes\\[0\\]\\.document\\.markdown: ${message.source}`));
      // The failing change is named by its index; the valid one before it is not applied either.
      const update = await api('POST', `/v1/spaces/${s}/change-requests/${c.id}/content`, {
        changes: [
          { operation: 'update_page', page: pageId, title: 'Renamed' },
          { operation: 'update_page', page: pageId, document: { markdown: md } },
        ],
      });
      expectError(update, 400, new RegExp(`^Invalid request: body\\.changes\\[1\\]\\.document\\.markdown: ${message.source}`));
    }
    expect((await api('GET', `/v1/spaces/${s}/change-requests/${c.id}`)).body.revision).toBe(revision);
    expect((await api('GET', `/v1/spaces/${s}/change-requests/${c.id}/content/page/${pageId}`)).body.title).toBe('Fine');
  });

  it('refuses malformed, deep and huge JSON documents with a 400 naming the node, never a 500', async () => {
    const s = await newSpace('Documents');
    const c = (await api('POST', `/v1/spaces/${s}/change-requests`, { subject: 'Documents' })).body;
    const write = (document: unknown) =>
      api('POST', `/v1/spaces/${s}/change-requests/${c.id}/content?compat=false`, {
        changes: [{ operation: 'insert_page', title: 'Doc', document: { document } }],
      });
    const doc = (nodes: unknown[]) => ({ object: 'document', data: {}, nodes });
    const text = (t: string) => ({ object: 'text', leaves: [{ object: 'leaf', text: t, marks: [] }] });
    const para = (...nodes: unknown[]) => ({ object: 'block', type: 'paragraph', data: {}, nodes });
    const at = 'Invalid request: body.changes[0].document.document';

    expectError(await write(doc([null])), 400, `${at}.nodes[0]: must be a node object (block, inline or text), not null`);
    expectError(
      await write(doc([para(text('a'), null)])),
      400,
      `${at}.nodes[0].nodes[1]: must be a node object (block, inline or text), not null`,
    );
    expectError(
      await write(doc([para({ object: 'text', leaves: [null] })])),
      400,
      `${at}.nodes[0].nodes[0].leaves[0]: must be a leaf object, not null`,
    );
    expectError(await write(doc([para({ object: 'text' })])), 400, `${at}.nodes[0].nodes[0]: a text node must have a "leaves" array`);
    expectError(
      await write(doc([para({ object: 'inline', type: 'link', nodes: [text('x')] })])),
      400,
      `${at}.nodes[0].nodes[0]: a link must have "data.ref", a content reference`,
    );
    expectError(
      await write(doc([{ object: 'block', type: 'paragraph', data: {}, nodes: 'x' }])),
      400,
      `${at}.nodes[0]: "nodes" must be an array`,
    );
    let deep: unknown = para(text('x'));
    for (let i = 0; i < 1000; i++) deep = { object: 'block', type: 'blockquote', data: {}, nodes: [deep] };
    expectError(
      await write(doc([deep])),
      400,
      /^Invalid request: body\.changes\[0\]\.document\.document\.nodes\[0\](\.nodes\[0\])+: nesting deeper than 72 levels$/,
    );
    // 15,000 levels (under 1 MB): JSON.parse takes it, nothing recursive may (sent as text: JSON.stringify would not).
    const levels = 15_000;
    const raw = `{"changes":[{"operation":"insert_page","title":"D","document":{"document":{"object":"document","data":{},"nodes":[${'{"object":"block","type":"blockquote","data":{},"nodes":['.repeat(levels)}${']}'.repeat(levels)}]}}}]}`;
    const deeper = await t.api('POST', `/v1/spaces/${s}/change-requests/${c.id}/content?compat=false`, {
      token: org.adminToken,
      rawBody: raw,
      headers: { 'content-type': 'application/json' },
    });
    expectError(deeper, 400, /: nesting deeper than 72 levels$/);
    let quotes: unknown = para(text('x'));
    for (let i = 0; i < 40; i++) quotes = { object: 'block', type: 'blockquote', data: {}, nodes: [quotes] };
    expectError(await write(doc([quotes])), 400, `${at}: as Markdown, nesting deeper than 32 levels (line 1)`);

    // A well-formed document is stored as Markdown.
    const fine = await write(
      doc([
        para(text('Hello '), { object: 'text', leaves: [{ object: 'leaf', text: 'world', marks: [{ object: 'mark', type: 'bold' }] }] }),
      ]),
    );
    expect(fine.status, JSON.stringify(fine.body)).toBe(200);
    const page = (await api('GET', `/v1/spaces/${s}/change-requests/${c.id}/content/page/${fine.body.changes[0].page.id}`)).body;
    expect(page.markdown).toBe('Hello **world**\n');
  });

  it('holds comment and reply bodies to the same limits', async () => {
    const s = await newSpace('Comments');
    const doc = (nodes: unknown[]) => ({ object: 'document', data: {}, nodes });
    expectError(
      await api('POST', `/v1/spaces/${s}/comments`, { body: { markdown: `${'> '.repeat(40)}x` } }),
      400,
      'Invalid request: body.body.markdown: nesting deeper than 32 levels (line 1)',
    );
    expectError(
      await api('POST', `/v1/spaces/${s}/comments`, { body: { document: doc([{ object: 'block', type: 'paragraph', nodes: [null] }]) } }),
      400,
      'Invalid request: body.body.document.nodes[0].nodes[0]: must be a node object (block, inline or text), not null',
    );
    const c = await api('POST', `/v1/spaces/${s}/comments`, { body: { markdown: 'Looks good' } });
    expect(c.status, JSON.stringify(c.body)).toBeLessThan(300);
    expectError(
      await api('PUT', `/v1/spaces/${s}/comments/${c.body.id}`, { body: { markdown: '*a '.repeat(6000) } }),
      400,
      /^Invalid request: body\.body\.markdown: more than 5,000 emphasis and link markers/,
    );
    expectError(
      await api('POST', `/v1/spaces/${s}/comments/${c.body.id}/replies`, { body: { document: doc([null]) } }),
      400,
      /^Invalid request: body\.body\.document\.nodes\[0\]: must be a node object/,
    );
    expect((await api('GET', `/v1/spaces/${s}/comments/${c.body.id}`)).body.body.markdown).toBe('Looks good');
  });
});

describe('stored content beyond the limits', () => {
  let s: string;
  const ids = Object.keys(HOSTILE).map((name, i) => [name, `hostile${i}`] as const);

  beforeAll(async () => {
    s = await newSpace('Stored', 'public');
    // Written past the API (as a git import or an older version would), each about 1.2 MB.
    await editContent(t, s, (d) => {
      for (const [name, id] of ids) d.insertPage(null, { id, title: name, markdown: `hostileword${id} ${big(HOSTILE[name].md)}` });
    });
  });

  it('reads as a plain-text document while /healthz answers first', async () => {
    for (const [name, id] of ids) {
      const r = await healthzFirst(() => api('GET', `/v1/spaces/${s}/content/page/${id}?format=document`));
      expect(r.status, name).toBe(200);
      const [block] = r.body.document.nodes;
      expect(block, name).toMatchObject({ object: 'block', type: 'code', data: { syntax: 'markdown' } });
      expect(block.nodes[0].nodes[0].leaves[0].text.startsWith(`hostileword${id} `), name).toBe(true);
      // As Markdown it is the body as stored.
      expect((await api('GET', `/v1/spaces/${s}/content/page/${id}`)).body.markdown.startsWith(`hostileword${id} `)).toBe(true);
    }
  });

  it('reads as preformatted text in the published view, without a token, while /healthz answers first', async () => {
    for (const [name, id] of ids) {
      const r = await healthzFirst(() => fetch(`${t.baseUrl}/s/${s}/${encodeURIComponent(name.replace(/ /g, '-'))}`));
      expect(r.status, name).toBe(200);
      const html = await r.text();
      expect(html, name).toContain('<p class="content-limit"><em>This page is shown as plain text: it exceeds the content limits (');
      expect(html, name).toContain(`<pre class="plain-text">hostileword${id} `);
    }
  });

  it('is found by search, indexed as text while /healthz answers first', async () => {
    // A new revision the index has not followed: the search indexes it, hostile pages included.
    await withTx(t.app.db, (c) =>
      editMainContent(c, s, (d) => d.insertPage(null, { title: 'Late', markdown: `${'>'.repeat(50_000)} latecomer` })),
    );
    const r = await healthzFirst(() => api('GET', `/v1/spaces/${s}/search?query=latecomer`));
    expect(r.status).toBe(200);
    expect(r.body.items.map((i: any) => i.title)).toEqual(['Late']);
    for (const [name, id] of ids) {
      const found = await api('GET', `/v1/spaces/${s}/search?query=hostileword${id}`);
      expect(
        found.body.items.map((i: any) => i.id),
        name,
      ).toEqual([id]);
    }
  });

  it('in comment bodies, reads as a plain-text document', async () => {
    const c = await api('POST', `/v1/spaces/${s}/comments`, { body: { markdown: 'placeholder' } });
    await t.app.db.query('UPDATE comments SET body = $1 WHERE id = $2', [big(HOSTILE['nested quotes'].md, 100_000), c.body.id]);
    const r = await healthzFirst(() => api('GET', `/v1/spaces/${s}/comments?format=document`));
    expect(r.status).toBe(200);
    const [comment] = r.body.items;
    expect(comment.body.document.nodes[0]).toMatchObject({ type: 'code', data: { syntax: 'markdown' } });
  });
});

describe('pages within the limits that are slow to parse', () => {
  it('are parsed off the event loop: /healthz answers first', async () => {
    const s = await newSpace('Slow');
    // Every limit allows it; parsing and converting 24,000 links takes seconds.
    const slow = `${'[a](https://example.com) '.repeat(2400)}\n\n`.repeat(10);
    const c = (await api('POST', `/v1/spaces/${s}/change-requests`, { subject: 'Slow' })).body;
    const w = await api('POST', `/v1/spaces/${s}/change-requests/${c.id}/content?compat=false`, {
      changes: [{ operation: 'insert_page', title: 'Slow', document: { markdown: slow } }],
    });
    expect(w.status, JSON.stringify(w.body).slice(0, 300)).toBe(200);
    const r = await healthzFirst(() =>
      api('GET', `/v1/spaces/${s}/change-requests/${c.id}/content/page/${w.body.changes[0].page.id}?format=document`),
    );
    expect(r.status).toBe(200);
    expect(r.body.document.nodes.length).toBeGreaterThan(0);
  });
});

describe('merging pages whose lines changed on both sides', () => {
  const { t: m } = useTestApp({ env: { MARKDOWN_TIMEOUT_MS: '500' } });

  it('merges them off the event loop, and past the time limit answers a 409 naming the page', async () => {
    const o = await m.seedOrg();
    const call = (method: string, path: string, body?: unknown) => m.api(method, path, { token: o.adminToken, body });
    const s = (await call('POST', `/v1/orgs/${o.orgId}/spaces`, { title: 'Merge', empty: true })).body.id;
    const lines = (prefix: string) => Array.from({ length: 100_000 }, (_, i) => `${prefix}${i}`).join('\n');
    await editContent(m, s, (d) => d.insertPage(null, { id: 'big', title: 'Big', markdown: lines('l') }));
    const c = (await call('POST', `/v1/spaces/${s}/change-requests`, { subject: 'Rewrite' })).body;
    // Written past the API: its limit check of 100,000 lines shares the 500 ms this app allows,
    // which a loaded machine can overrun; what is tested is the merge.
    await withTx(m.app.db, (tx) =>
      editChangeRequestContent(tx, s, c.id, (d) => d.updatePage('big', { markdown: lines('r') }), {}, { check: () => {} }),
    );
    await editContent(m, s, (d) => d.updatePage('big', { markdown: `${lines('l')}\nmain` }));
    const order: string[] = [];
    const merge = call('POST', `/v1/spaces/${s}/change-requests/${c.id}/merge`).then((r) => (order.push('merge'), r));
    expect((await fetch(`${m.baseUrl}/healthz`)).status).toBe(200);
    order.push('healthz');
    const r = await merge;
    expect(order).toEqual(['healthz', 'merge']);
    expectError(r, 409, /Big.*both sides changed the page too much to merge its lines within 500 ms/);
    // Small texts still merge line by line.
    await editContent(m, s, (d) => d.insertPage(null, { id: 'small', title: 'Small', markdown: 'one\ntwo\nthree' }));
    const c2 = (await call('POST', `/v1/spaces/${s}/change-requests`, { subject: 'Small' })).body;
    await call('POST', `/v1/spaces/${s}/change-requests/${c2.id}/content`, {
      changes: [{ operation: 'update_page', page: 'small', document: { markdown: 'one\ntwo\nthree!' } }],
    });
    await editContent(m, s, (d) => d.updatePage('small', { markdown: 'one!\ntwo\nthree' }));
    expect((await call('POST', `/v1/spaces/${s}/change-requests/${c2.id}/merge`)).status).toBe(200);
    expect((await call('GET', `/v1/spaces/${s}/content/page/small`)).body.markdown).toBe('one!\ntwo\nthree!');
  });
});
