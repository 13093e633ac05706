// The six translation operations and the run job, end to end with the built-in pseudo provider:
// the official client where it covers an operation, responses checked against the description.
import { beforeAll, describe, expect, it } from 'vitest';
import { GitBookAPI } from '@gitbook/api';
import { useTestApp } from '../../helpers/app.js';
import { assertMatchesSpec } from '../../helpers/spec.js';
import { waitFor } from '../../helpers/http.js';
import { operationSettled } from '../../helpers/operations.js';
import { addFile, editContent, PNG_2x1 } from '../../helpers/content.js';
import { revisionSnapshot } from '../../../src/content/commit.js';
import { loadBodies } from '../../../src/content/snapshot.js';
import { getSpace } from '../../../src/db/repos/spaces.js';

const { t, org } = useTestApp({ workers: ['translation'], seedOrg: true });
let api: any;

const INTRO = [
  'Welcome to the product documentation.',
  '',
  'Install it with `npm install acme` and read [the install guide](install.md) or [the website](https://acme.example/docs "Acme").',
  '',
  '```bash',
  'acme init --name "my project"',
  '```',
  '',
  '![A screenshot of the dashboard](.gitbook/assets/shot.png)',
  '',
  '| Option | Meaning |',
  '| ------ | ------- |',
  '| `port` | Listening port of the server |',
  '',
  'The version is {{ space.vars.version }} today.',
  '',
  '{% hint style="warning" %}',
  'Back up your data before upgrading.',
  '{% endhint %}',
  '',
  '{% tabs %}',
  '{% tab title="Linux" %}',
  'Use the package manager.',
  '{% endtab %}',
  '{% endtabs %}',
  '',
  '<details><summary>raw html</summary>kept as is</details>',
  '',
].join('\n');

const INSTALL = ['# Installing', '', 'Go back to [the introduction](introduction.md).', '', '- First step', '- Second step', ''].join('\n');

const path = (o = org.orgId) => `/v1/orgs/${o}/translations`;

async function pagesOf(spaceId: string) {
  const space = (await getSpace(t.app.db, spaceId))!;
  const { snapshot } = await revisionSnapshot(t.app.db, spaceId, space.revision_id);
  const bodies = await loadBodies(
    t.app.db,
    spaceId,
    snapshot.ordered.map((p) => p.node),
  );
  return snapshot.ordered.map((p) => ({
    id: p.node.id,
    title: p.node.title,
    description: p.node.description,
    parent: p.parentId,
    md: bodies.get(p.node.id)!,
  }));
}

async function waitRuns(id: string, runs: number) {
  return waitFor(
    async () => {
      const r = await t.api('GET', `${path()}/${id}`, { token: org.adminToken });
      return r.body.stats.runs >= runs && r.body.status === 'completed' ? r.body : null;
    },
    { what: `run ${runs} of translation ${id}` },
  );
}

let source: string;
let introId: string;
let installId: string;

beforeAll(async () => {
  api = new GitBookAPI({ endpoint: t.baseUrl, authToken: org.adminToken });
  const s = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Docs', empty: true } });
  source = s.body.id;
  await addFile(t, source, 'shot.png', 'image/png', PNG_2x1);
  await editContent(t, source, (d) => {
    introId = d.insertPage(null, { title: 'Introduction', description: 'Where to start', markdown: INTRO });
    installId = d.insertPage(null, { title: 'Install', markdown: INSTALL });
    d.setVariables({ version: '2.1' });
  });
});

describe('translations', () => {
  let id: string;
  let resultSpace: string;
  let firstOp: string;

  it('creates a translation (201, pending) through the official client and runs it', async () => {
    const created = await api.orgs.createTranslation(org.orgId, {
      language: 'fr',
      source: { space: source, language: 'en' },
      instructions: {
        object: 'document',
        data: {},
        nodes: [
          {
            object: 'block',
            type: 'paragraph',
            data: {},
            nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Be formal.', marks: [] }] }],
          },
        ],
      },
    });
    expect(created.status).toBe(201);
    expect(created.data.status).toBe('pending');
    expect(created.data.stats).toEqual({
      runs: 0,
      totalWords: 0,
      totalPages: 0,
      totalDuration: 0,
      latestRunDuration: 0,
      latestPages: 0,
      latestWords: 0,
    });
    assertMatchesSpec('POST', '/orgs/{organizationId}/translations', 201, created.data);
    id = created.data.id;
    const op = created.headers.get('operation-location');
    firstOp = new URL(op!).pathname;
    expect(op).toMatch(/\/v1\/operations\//);

    const final = await operationSettled(t, op, { token: org.adminToken });
    expect(final.error).toBeUndefined();
    const done = await waitRuns(id, 1);
    assertMatchesSpec('GET', '/orgs/{organizationId}/translations/{translationId}', 200, done);
    expect(done.result.language).toBe('fr');
    resultSpace = done.result.space;
    expect(done.stats.runs).toBe(1);
    expect(done.stats.latestPages).toBe(2);
    expect(done.stats.totalPages).toBe(2);
    expect(done.stats.latestWords).toBeGreaterThan(30);
    expect(done.stats.totalWords).toBe(done.stats.latestWords);
    const operation = await t.api('GET', new URL(op!).pathname, { token: org.adminToken });
    expect(operation.body.status).toBe('succeeded');
    expect(operation.body.progress).toBe(1);
    expect(operation.body.result).toMatchObject({ pages: 2, warnings: 0, revision: done.result.revision });
  });

  it('writes a result space in the target language with the same pages, every prose word changed and the rest byte-identical', async () => {
    const space = await t.api('GET', `/v1/spaces/${resultSpace}`, { token: org.adminToken });
    expect(space.body.language).toBe('fr');
    expect(space.body.organization).toBe(org.orgId);
    const [src, res] = [await pagesOf(source), await pagesOf(resultSpace)];
    expect(res.map((p) => [p.id, p.parent])).toEqual(src.map((p) => [p.id, p.parent]));
    const intro = res.find((p) => p.id === introId)!;
    expect(intro.title).not.toContain('Introduction');
    expect(intro.description).toMatch(/^⟦Ŵĥéŕé/);
    for (const kept of [
      '```bash\nacme init --name "my project"\n```',
      '`npm install acme`',
      '](install.md)',
      '](https://acme.example/docs "Acme")',
      '](.gitbook/assets/shot.png)',
      '{{ space.vars.version }}',
      '{% hint style="warning" %}',
      '{% endhint %}',
      '{% tabs %}',
      '<details><summary>raw html</summary>kept as is</details>',
      '| `port` |',
    ]) {
      expect(intro.md).toContain(kept);
    }
    const prose = [
      'Welcome',
      'product',
      'documentation',
      'Install',
      'guide',
      'screenshot',
      'Listening',
      'version',
      'Back',
      'upgrading',
      'Linux',
      'package',
    ];
    const outside = intro.md.replace(/```[\s\S]*?```|`[^`]*`|\]\([^)]*\)|\{\{[^}]*\}\}|\{%[^%]*%\}|<[^>]*>[^<]*<\/[^>]*>/g, '');
    for (const w of prose) expect(outside).not.toMatch(new RegExp(`\\b${w}\\b`));
    const install = res.find((p) => p.id === installId)!;
    expect(install.md).toMatch(/^# ⟦Íñšţáļļíñĝ/);
    expect(install.md).toContain('](introduction.md)');

    // Links, files and pages keep resolving: no broken link in the result.
    const broken = await t.api('GET', `/v1/spaces/${resultSpace}/links?status=broken`, { token: org.adminToken });
    expect(broken.status).toBe(200);
    expect(broken.body.items).toEqual([]);
    const links = await t.api('GET', `/v1/spaces/${resultSpace}/links`, { token: org.adminToken });
    expect(links.body.items.length).toBeGreaterThanOrEqual(3);
    const files = await t.api('GET', `/v1/spaces/${resultSpace}/content/files`, { token: org.adminToken });
    expect(files.body.items.map((f: any) => f.name)).toEqual(['shot.png']);
  });

  it('a second run after editing one paragraph translates only that page and segment', async () => {
    await editContent(t, source, (d) =>
      d.updatePage(introId, { markdown: INTRO.replace('Welcome to the product documentation.', 'Welcome to the new documentation.') }),
    );
    const before = (await t.api('GET', `${path()}/${id}`, { token: org.adminToken })).body;
    const run = await api.orgs.runTranslation(org.orgId, id);
    expect(run.status).toBe(204);
    const location = run.headers.get('location');
    expect(location).toMatch(/\/v1\/operations\//);
    const done = await waitRuns(id, 2);
    expect(done.stats.latestPages).toBe(1);
    expect(done.stats.latestWords).toBe(5); // "Welcome to the new documentation"
    expect(done.stats.totalWords).toBe(before.stats.totalWords + 5);
    expect(done.stats.totalPages).toBe(2);
    expect(done.result.revision).not.toBe(before.result.revision);
    // The operation's result is recorded just after the run's commit: wait for it.
    const op = await operationSettled(t, location, { token: org.adminToken });
    expect(op.result).toMatchObject({ pages: 1, segments: 1 });
    const intro = (await pagesOf(resultSpace)).find((p) => p.id === introId)!;
    expect(intro.md.startsWith('⟦Ŵéļçöɱé ţö ţĥé ñéŵ')).toBe(true);
  });

  it('an unchanged source costs nothing; moves apply without translating; deleted pages disappear', async () => {
    let done = await (async () => {
      await api.orgs.runTranslation(org.orgId, id);
      return waitRuns(id, 3);
    })();
    expect(done.stats.latestPages).toBe(0);
    expect(done.stats.latestWords).toBe(0);

    let extra = '';
    await editContent(t, source, (d) => {
      d.movePage(installId, null, 0);
      extra = d.insertPage(introId, { title: 'Child page', markdown: 'Some words.' });
    });
    await api.orgs.runTranslation(org.orgId, id);
    done = await waitRuns(id, 4);
    expect(done.stats.latestPages).toBe(1); // only the new page
    let res = await pagesOf(resultSpace);
    expect(res.map((p) => [p.id, p.parent])).toEqual([
      [installId, null],
      [introId, null],
      [extra, introId],
    ]);

    await editContent(t, source, (d) => d.deletePage(extra));
    await api.orgs.runTranslation(org.orgId, id);
    done = await waitRuns(id, 5);
    expect(done.stats.latestPages).toBe(0);
    expect(done.stats.totalPages).toBe(2);
    res = await pagesOf(resultSpace);
    expect(res.map((p) => p.id)).toEqual([installId, introId]);
  });

  it('new instructions retranslate every page', async () => {
    const put = await api.orgs.updateTranslation(org.orgId, id, {
      instructions: {
        object: 'document',
        data: {},
        nodes: [
          {
            object: 'block',
            type: 'paragraph',
            data: {},
            nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Be casual.', marks: [] }] }],
          },
        ],
      },
    });
    expect(put.status).toBe(200);
    assertMatchesSpec('PUT', '/orgs/{organizationId}/translations/{translationId}', 200, put.data);
    expect(put.data.instructions.nodes[0].nodes[0].leaves[0].text).toBe('Be casual.');
    await api.orgs.runTranslation(org.orgId, id);
    const done = await waitRuns(id, 6);
    expect(done.stats.latestPages).toBe(2);
    expect(done.stats.latestWords).toBeGreaterThan(30);
  });

  it('keeps an organization glossary; a change to it retranslates', async () => {
    const g = `/v1/orgs/${org.orgId}/translations-glossary`;
    const put = await t.api('PUT', g, {
      token: org.adminToken,
      body: {
        operations: [
          { type: 'insert', translations: { en: 'dashboard', fr: 'tableau de bord' } },
          { type: 'insert', translations: { en: 'space', de: 'Bereich' } },
        ],
      },
    });
    expect(put.status).toBe(204);
    const list = await api.orgs.listGlossaryEntries(org.orgId, { orderBy: 'en' });
    assertMatchesSpec('GET', '/orgs/{organizationId}/translations-glossary', 200, list.data);
    expect(list.data.items.map((e: any) => e.translations.en)).toEqual(['dashboard', 'space']);
    const one = await api.orgs.getGlossaryEntry(org.orgId, list.data.items[1].id);
    assertMatchesSpec('GET', '/orgs/{organizationId}/translations-glossary/{glossaryEntryId}', 200, one.data);
    const bad = async (body: unknown) => (await t.api('PUT', g, { token: org.adminToken, body })).status;
    expect(await bad({ operations: [{ type: 'insert', translations: { xx: 'nope' } }] })).toBe(400);
    expect(await bad({ operations: [{ type: 'insert', translations: { en: 'two\nlines' } }] })).toBe(400);
    expect(await bad({ operations: [{ type: 'update', id: 'missing', translations: { en: 'x' } }] })).toBe(400);
    const del = await t.api('PUT', g, { token: org.adminToken, body: { operations: [{ type: 'delete', id: one.data.id }] } });
    expect(del.status).toBe(204);
    expect((await t.api('GET', `${g}/${one.data.id}`, { token: org.adminToken })).status).toBe(404);
    const reader = await t.seedUser(org.orgId, 'read');
    expect((await t.api('PUT', g, { token: reader.token, body: { operations: [] } })).status).toBe(403);

    // The en/fr entry is part of what the fr translation depends on: every page is translated again.
    const runs = (await t.api('GET', `${path()}/${id}`, { token: org.adminToken })).body.stats.runs;
    await api.orgs.runTranslation(org.orgId, id);
    const done = await waitRuns(id, runs + 1);
    expect(done.stats.latestPages).toBe(2);
  });

  it('lists translations the caller can see', async () => {
    const list = await api.orgs.listTranslations(org.orgId);
    assertMatchesSpec('GET', '/orgs/{organizationId}/translations', 200, list.data);
    expect(list.data.items.map((x: any) => x.id)).toEqual([id]);
    const outsider = await t.seedOrg('Other org');
    const r = await t.api('GET', path(), { token: outsider.adminToken });
    expect(r.status).toBe(403);
  });

  it('refuses bad requests with 400 naming the field, unknown ids with 404', async () => {
    const post = (body: unknown) => t.api('POST', path(), { token: org.adminToken, body });
    let r = await post({ language: 'en', source: { space: source, language: 'en' } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain('body.language');
    r = await post({ language: 'fr', source: { space: source, language: 'en' } });
    expect(r.status).toBe(400); // the pair already has a translation
    const other = await t.seedOrg('Elsewhere');
    const foreign = await t.api('POST', `/v1/orgs/${other.orgId}/spaces`, { token: other.adminToken, body: { title: 'Foreign' } });
    r = await post({ language: 'de', source: { space: foreign.body.id, language: 'en' } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain('body.source.space');
    r = await post({ language: 'xx', source: { space: source, language: 'en' } });
    expect(r.status).toBe(400);
    r = await post({ language: 'de' });
    expect(r.status).toBe(400);
    expect((await t.api('GET', `${path()}/nope`, { token: org.adminToken })).status).toBe(404);
    expect((await t.api('POST', `${path()}/nope/run`, { token: org.adminToken })).status).toBe(404);
    expect(
      (await t.api('PUT', `${path()}/nope`, { token: org.adminToken, body: { instructions: { object: 'document', data: {}, nodes: [] } } }))
        .status,
    ).toBe(404);
    const reader = await t.seedUser(org.orgId, 'read');
    expect((await t.api('POST', `${path()}/${id}/run`, { token: reader.token })).status).toBe(403);
    expect((await t.api('GET', `${path()}/${id}`, { token: reader.token })).status).toBe(200);
  });

  it('hides translations and their runs from members who cannot read the source space', async () => {
    const member = await t.seedUser(org.orgId, 'edit');
    expect((await t.api('GET', `${path()}/${id}`, { token: member.token })).status).toBe(200);
    expect((await t.api('GET', firstOp, { token: member.token })).status).toBe(200);
    const patch = await t.api('PATCH', `/v1/spaces/${source}`, { token: org.adminToken, body: { defaultLevel: null } });
    expect(patch.status).toBe(200);
    try {
      expect((await t.api('GET', `${path()}/${id}`, { token: member.token })).status).toBe(404);
      expect((await t.api('POST', `${path()}/${id}/run`, { token: member.token })).status).toBe(404);
      expect((await t.api('GET', firstOp, { token: member.token })).status).toBe(404);
      expect((await t.api('GET', path(), { token: member.token })).body.items).toEqual([]);
      const r = await t.api('POST', path(), { token: member.token, body: { language: 'it', source: { space: source, language: 'en' } } });
      expect(r.status).toBe(403); // edit is below create: may not create translations at all
    } finally {
      await t.api('PATCH', `/v1/spaces/${source}`, { token: org.adminToken, body: { defaultLevel: 'inherit' } });
    }
    const viaClient = await api.orgs.getTranslation(org.orgId, id);
    expect(viaClient.data.id).toBe(id);
  });

  it('deletes: 205, then 204; the result space stays', async () => {
    const del = await api.orgs.deleteTranslation(org.orgId, id);
    expect(del.status).toBe(205);
    const again = await t.api('DELETE', `${path()}/${id}`, { token: org.adminToken });
    expect(again.status).toBe(204);
    expect((await t.api('GET', `${path()}/${id}`, { token: org.adminToken })).status).toBe(404);
    expect((await t.api('GET', `/v1/spaces/${resultSpace}`, { token: org.adminToken })).status).toBe(200);
  });
});
