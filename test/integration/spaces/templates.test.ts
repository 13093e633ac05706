import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { assertMatchesSpec } from '../../helpers/spec.js';
import { addFile, PNG_2x1 } from '../../helpers/content.js';
import { extractLinks, headings } from '../../../src/content/markdown.js';
import { loadTemplate } from '../../../src/content/templates/index.js';

const { t, org } = useTestApp({ seedOrg: true });

async function createSpace(body: Record<string, unknown>, token = org.adminToken) {
  const r = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token, body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

async function pages(spaceId: string) {
  const r = await t.api('GET', `/v1/spaces/${spaceId}/content/pages`, { token: org.adminToken });
  expect(r.status).toBe(200);
  return r.body.pages as any[];
}

/** [title, [child titles]] per top-level page. */
function outline(list: any[]): unknown[] {
  return list.map((p) => (p.pages?.length ? [p.title, outline(p.pages)] : p.title));
}

function flatten(list: any[]): any[] {
  return list.flatMap((p) => [p, ...flatten(p.pages ?? [])]);
}

async function markdownOf(spaceId: string, pageId: string): Promise<string> {
  const r = await t.api('GET', `/v1/spaces/${spaceId}/content/page/${pageId}`, { token: org.adminToken });
  expect(r.status).toBe(200);
  // (A page with children does not validate: the public schema wants each nested page to carry a
  // body, which the page read leaves out. Checked on leaf pages, covers included.)
  if (!r.body.pages?.length) assertMatchesSpec('GET', '/spaces/{spaceId}/content/page/{pageId}', 200, r.body);
  return r.body.markdown;
}

async function revisionOf(spaceId: string): Promise<string> {
  return (await t.api('GET', `/v1/spaces/${spaceId}`, { token: org.adminToken })).body.revision;
}

const today = () => new Date().toISOString().slice(0, 10);

const EXPECTED: Record<string, unknown[]> = {
  'product-docs': ['Introduction', ['Getting started', ['Quickstart', 'Installation']], 'Guides', 'Reference', 'FAQ'],
  'api-reference': ['Overview', 'Authentication', 'Errors', 'Pagination', 'Endpoints', 'Changelog'],
  changelog: [['Changelog', ['Writing release notes']]],
  runbook: ['Service overview', 'Alerts', 'Diagnosis', 'Mitigation', 'Escalation', 'Postmortem template'],
};

describe('creating a space from a built-in template', () => {
  for (const [id, expected] of Object.entries(EXPECTED)) {
    it(`${id}: the page tree, real Markdown, and links between its pages that resolve`, async () => {
      const space = await createSpace({ title: `From ${id}`, template: { id } });
      const tree = await pages(space.id);
      expect(outline(tree)).toEqual(expected);

      const all = flatten(tree);
      const byId = new Map(all.map((p) => [p.id, p]));
      const bodies = new Map<string, string>();
      for (const p of all) bodies.set(p.id, await markdownOf(space.id, p.id));
      let internal = 0;
      for (const [pageId, md] of bodies) {
        expect(md.length, `page ${byId.get(pageId).title} has content`).toBeGreaterThan(200);
        expect(headings(md).length, `page ${byId.get(pageId).title} has headings`).toBeGreaterThan(0);
        // No template placeholder leaks into a space, and no slot left empty becomes a broken image.
        expect(md).not.toMatch(/\((page|slot):|\{\{\s*template\./);
        for (const link of extractLinks(md)) {
          expect(link.url.startsWith('/files/'), `no image without a content ref (${link.url})`).toBe(false);
          const m = /^\/pages\/([^#/]+)(?:#(.+))?$/.exec(link.url);
          if (!m) continue;
          internal++;
          expect(byId.has(m[1]), `link ${link.url} on "${byId.get(pageId).title}" targets a page of the space`).toBe(true);
          if (m[2]) expect(headings(bodies.get(m[1]) ?? (await markdownOf(space.id, m[1]))).map((h) => h.id)).toContain(m[2]);
        }
      }
      expect(internal, 'the template links its pages together').toBeGreaterThanOrEqual(all.length);
    });
  }

  it('writes real, structured content: headings, lists, code blocks, tables and dated entries', async () => {
    const docs = await createSpace({ title: 'Docs', template: { id: 'product-docs' } });
    const tree = await pages(docs.id);
    const quickstart = flatten(tree).find((p) => p.title === 'Quickstart');
    expect(quickstart.path).toBe('getting-started/quickstart');
    const md = await markdownOf(docs.id, quickstart.id);
    expect(md).toContain('## 1. Install the CLI');
    expect(md).toMatch(/```bash\nnpm install --global/);
    const reference = await markdownOf(docs.id, tree.find((p) => p.title === 'Reference').id);
    expect(reference).toMatch(/\| Variable \| Default \| Description \|/);
    const intro = tree[0];
    expect(intro).toMatchObject({ emoji: '👋', description: 'What the product is and where to start' });
    expect(intro.cover).toBeUndefined();

    const changelog = await createSpace({ title: 'Releases', template: { id: 'changelog' } });
    const entries = await markdownOf(changelog.id, (await pages(changelog.id))[0].id);
    expect(headings(entries).map((h) => h.title)).toContain(`${today()} · v1.0.0`);

    // The space's first revision holds exactly the template (no extra "Introduction").
    const content = await t.api('GET', `/v1/spaces/${changelog.id}/content`, { token: org.adminToken });
    expect(content.body.parents).toEqual([]);
  });

  it('refuses an unknown template or a content ref the new space cannot have, creating nothing', async () => {
    const before = (await t.api('GET', `/v1/orgs/${org.orgId}/spaces?limit=1000`, { token: org.adminToken })).body.count;
    const unknown = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, {
      token: org.adminToken,
      body: { title: 'X', template: { id: 'no-such-template' } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('body.template.id');
    expect(unknown.body.error.message).toContain('product-docs');
    // A new space has no files yet, so no file can fill a slot.
    const ref = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, {
      token: org.adminToken,
      body: { title: 'Y', template: { id: 'product-docs', params: { contentRefs: { logo: { kind: 'file', file: 'someFile' } } } } },
    });
    expect(ref.status).toBe(400);
    expect(ref.body.error.message).toContain('body.template.params.contentRefs.logo');
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/spaces?limit=1000`, { token: org.adminToken })).body.count).toBe(before);
  });
});

describe('POST /v1/spaces/{spaceId}/content/template', () => {
  it('fills image and cover slots from files of the space', async () => {
    const space = await createSpace({ title: 'Branded', empty: true });
    const logo = await addFile(t, space.id, 'logo.png', 'image/png', PNG_2x1);
    const cover = await addFile(t, space.id, 'cover.png', 'image/png', Buffer.concat([PNG_2x1, Buffer.from('cover')]));
    const r = await t.api('POST', `/v1/spaces/${space.id}/content/template`, {
      token: org.adminToken,
      body: { id: 'product-docs', params: { contentRefs: { logo: { kind: 'file', file: logo }, cover: { kind: 'file', file: cover } } } },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(204);
    const tree = await pages(space.id);
    const intro = tree[0];
    expect(intro.title).toBe('Introduction');
    expect(intro.cover).toEqual({ ref: { kind: 'file', file: cover }, yPos: 0 });
    expect(intro.layout.cover).toBe(true);
    const md = await markdownOf(space.id, intro.id);
    expect(md.startsWith(`![Logo](/files/${logo})`)).toBe(true);
    expect(
      extractLinks(md)
        .filter((l) => l.kind === 'image')
        .map((l) => l.url),
    ).toEqual([`/files/${logo}`]);
    // The runbook's diagram slot.
    const runbook = await createSpace({ title: 'Runbook', empty: true });
    const diagram = await addFile(t, runbook.id, 'architecture.png', 'image/png', PNG_2x1);
    const rr = await t.api('POST', `/v1/spaces/${runbook.id}/content/template`, {
      token: org.adminToken,
      body: { id: 'runbook', params: { contentRefs: { architecture: { kind: 'file', file: diagram, space: runbook.id } } } },
    });
    expect(rr.status).toBe(204);
    const overview = await markdownOf(runbook.id, (await pages(runbook.id))[0].id);
    expect(overview).toContain(`![Architecture diagram](/files/${diagram})`);
  });

  it('refuses a missing file, an unknown slot, a non-image or another space, changing nothing', async () => {
    const space = await createSpace({ title: 'Unchanged', empty: true });
    const pdf = await addFile(t, space.id, 'terms.pdf', 'application/pdf', Buffer.from('%PDF-1.4 not an image'));
    const revision = await revisionOf(space.id);
    const cases: [Record<string, unknown>, string][] = [
      [
        { id: 'product-docs', params: { contentRefs: { logo: { kind: 'file', file: 'missingFile' } } } },
        'body.params.contentRefs.logo: file "missingFile" does not exist',
      ],
      [{ id: 'product-docs', params: { contentRefs: { banner: { kind: 'file', file: pdf } } } }, 'body.params.contentRefs.banner'],
      [{ id: 'product-docs', params: { contentRefs: { cover: { kind: 'file', file: pdf } } } }, 'not an image'],
      [
        { id: 'product-docs', params: { contentRefs: { logo: { kind: 'file', file: pdf, space: 'otherSpace' } } } },
        'body.params.contentRefs.logo.space',
      ],
      [
        { id: 'product-docs', params: { contentRefs: { logo: { kind: 'url', url: 'https://example.com/x.png' } } } },
        'body.params.contentRefs.logo',
      ],
      [{ id: 'nope' }, 'body.id: unknown template "nope"'],
      [{ params: {} }, 'body.id'],
    ];
    for (const [body, message] of cases) {
      const r = await t.api('POST', `/v1/spaces/${space.id}/content/template`, { token: org.adminToken, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.message).toContain(message);
    }
    expect(await revisionOf(space.id)).toBe(revision);
    expect(await pages(space.id)).toEqual([]);
  });

  it('appends to an existing space in one new revision, keeping what was there', async () => {
    const space = await createSpace({ title: 'Existing' });
    const [existing] = await pages(space.id);
    const before = await revisionOf(space.id);
    const r = await t.api('POST', `/v1/spaces/${space.id}/content/template`, { token: org.adminToken, body: { id: 'api-reference' } });
    expect(r.status).toBe(204);
    const tree = await pages(space.id);
    expect(tree.map((p) => p.title)).toEqual([
      'Introduction',
      'Overview',
      'Authentication',
      'Errors',
      'Pagination',
      'Endpoints',
      'Changelog',
    ]);
    expect(tree[0]).toMatchObject({ id: existing.id, slug: 'introduction' });
    const content = await t.api('GET', `/v1/spaces/${space.id}/content`, { token: org.adminToken });
    expect(content.body.parents).toEqual([before]);

    // Applying twice gives two independent copies (fresh ids, unique slugs), each linking to its own pages.
    await t.api('POST', `/v1/spaces/${space.id}/content/template`, { token: org.adminToken, body: { id: 'changelog' } });
    await t.api('POST', `/v1/spaces/${space.id}/content/template`, { token: org.adminToken, body: { id: 'changelog' } });
    const again = await pages(space.id);
    const [first, second] = again.filter((p) => p.title === 'Changelog' && p.pages.length);
    expect(first.id).not.toBe(second.id);
    expect(new Set(again.map((p) => p.slug)).size).toBe(again.length);
    const secondMd = await markdownOf(space.id, second.id);
    expect(secondMd).toContain(`/pages/${second.pages[0].id}#entry-format`);
    expect(secondMd).not.toContain(first.pages[0].id);
  });

  it('applies to a change request when changeRequestId is given, leaving main untouched until merge', async () => {
    const space = await createSpace({ title: 'Reviewed' });
    const mainRevision = await revisionOf(space.id);
    const cr = await t.api('POST', `/v1/spaces/${space.id}/change-requests`, { token: org.adminToken, body: { subject: 'Add a runbook' } });
    expect(cr.status).toBe(201);
    const r = await t.api('POST', `/v1/spaces/${space.id}/content/template`, {
      token: org.adminToken,
      body: { id: 'runbook', changeRequestId: cr.body.id },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(204);
    expect(await revisionOf(space.id)).toBe(mainRevision);
    expect((await pages(space.id)).map((p) => p.title)).toEqual(['Introduction']);
    const crPages = await t.api('GET', `/v1/spaces/${space.id}/change-requests/${cr.body.id}/content/pages`, { token: org.adminToken });
    expect(crPages.body.pages.map((p: any) => p.title)).toEqual(['Introduction', ...(EXPECTED.runbook as string[])]);
    const after = await t.api('GET', `/v1/spaces/${space.id}/change-requests/${cr.body.id}`, { token: org.adminToken });
    expect(after.body.revision).not.toBe(cr.body.revision);
    // Merged, the template's pages reach main.
    expect((await t.api('POST', `/v1/spaces/${space.id}/change-requests/${cr.body.id}/merge`, { token: org.adminToken })).status).toBe(200);
    expect((await pages(space.id)).map((p) => p.title)).toEqual(['Introduction', ...(EXPECTED.runbook as string[])]);
    // An unknown or merged change request: nothing applied.
    expect(
      (
        await t.api('POST', `/v1/spaces/${space.id}/content/template`, {
          token: org.adminToken,
          body: { id: 'runbook', changeRequestId: 'noSuchCr' },
        })
      ).status,
    ).toBe(404);
    const merged = await t.api('POST', `/v1/spaces/${space.id}/content/template`, {
      token: org.adminToken,
      body: { id: 'runbook', changeRequestId: cr.body.id },
    });
    expect(merged.status).toBe(409);
  });

  it('needs edit on the space: a read member gets 403, a non-member 404, and nothing changes', async () => {
    const space = await createSpace({ title: 'Guarded', empty: true });
    const revision = await revisionOf(space.id);
    const reader = await t.seedUser(org.orgId, 'read');
    const denied = await t.api('POST', `/v1/spaces/${space.id}/content/template`, { token: reader.token, body: { id: 'runbook' } });
    expect(denied.status).toBe(403);
    const outsider = await t.seedUser();
    expect(
      (await t.api('POST', `/v1/spaces/${space.id}/content/template`, { token: outsider.token, body: { id: 'runbook' } })).status,
    ).toBe(404);
    expect(await revisionOf(space.id)).toBe(revision);
    const editor = await t.seedUser(org.orgId, 'edit');
    expect((await t.api('POST', `/v1/spaces/${space.id}/content/template`, { token: editor.token, body: { id: 'runbook' } })).status).toBe(
      204,
    );
    expect(await revisionOf(space.id)).not.toBe(revision);
  });

  it('refuses a locked space (409) and changes nothing', async () => {
    const space = await createSpace({ title: 'Locked', empty: true });
    await t.api('PATCH', `/v1/spaces/${space.id}`, { token: org.adminToken, body: { editMode: 'locked' } });
    const revision = await revisionOf(space.id);
    const r = await t.api('POST', `/v1/spaces/${space.id}/content/template`, { token: org.adminToken, body: { id: 'runbook' } });
    expect(r.status).toBe(409);
    expect(r.body.error.message).toContain('locked');
    expect(await revisionOf(space.id)).toBe(revision);
  });
});

describe('GET /v1/templates', () => {
  it('lists the built-in templates with their content-ref slots and outline', async () => {
    const r = await t.api('GET', '/v1/templates', { token: org.adminToken });
    expect(r.status).toBe(200);
    expect(r.body.items.map((x: any) => x.id)).toEqual(['product-docs', 'api-reference', 'changelog', 'runbook']);
    const docs = r.body.items[0];
    expect(docs).toMatchObject({ object: 'space-template', title: 'Product documentation', emoji: '📘' });
    expect(docs.contentRefs.map((c: any) => [c.name, c.usage])).toEqual([
      ['logo', 'image'],
      ['cover', 'cover'],
    ]);
    expect(docs.pages[1]).toEqual({ title: 'Getting started', pages: [{ title: 'Quickstart' }, { title: 'Installation' }] });
    expect((await t.api('GET', '/v1/templates')).status).toBe(401);
  });
});

describe('template checks at start-up', () => {
  it('rejects a template with a dangling link, a missing anchor or an undeclared slot', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'tpl-'));
    try {
      const base = { id: 'broken', title: 'Broken', subtitle: '', emoji: '', features: [], dir: pathToFileURL(`${dir}/`) };
      await writeFile(path.join(dir, 'a.md'), '# A\n\nSee [B](page:b).\n');
      await writeFile(path.join(dir, 'b.md'), '# B\n\n## Known\n\nBack to [A](page:a#a).\n');
      const pagesAB = [
        { key: 'a', title: 'A', file: 'a.md' },
        { key: 'b', title: 'B', file: 'b.md' },
      ];
      expect(loadTemplate({ ...base, slots: {}, pages: pagesAB }).bodies.size).toBe(2);
      expect(() => loadTemplate({ ...base, slots: {}, pages: [pagesAB[0]] })).toThrow(/links to unknown page "b"/);
      await writeFile(path.join(dir, 'b.md'), 'Back to [A](page:a#nowhere).\n');
      expect(() => loadTemplate({ ...base, slots: {}, pages: pagesAB })).toThrow(/no such heading/);
      await writeFile(path.join(dir, 'b.md'), '![x](slot:logo)\n');
      expect(() => loadTemplate({ ...base, slots: {}, pages: pagesAB })).toThrow(/not an image slot/);
      await writeFile(path.join(dir, 'b.md'), 'Broken [link](page:A Capital).\n');
      expect(() => loadTemplate({ ...base, slots: {}, pages: pagesAB })).toThrow(/malformed placeholder/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
