// A real GitBook repository's pages with titled code inside tabs and steps, imported from git, read
// through the API as JSON documents, written back as documents (as an editor built on the API does),
// merged and exported to git: every `{% code %}` frame is in the exported files as it was in the
// imported ones (before, the frames inside tabs and steps were lost on that trip).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { codeFrames } from '../../helpers/code-frames.js';
import { GITBOOK_FIXTURES, requireFixtures } from '../../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../../helpers/git-server.js';
import { operationSettled } from '../../helpers/operations.js';

const GITBOOK = requireFixtures(GITBOOK_FIXTURES);
/** Real pages with code frames in tabs (titles; line numbers) and in steps. */
const PAGES = {
  'wallet.md': 'stacks-network--docs/docs/build/stacks-connect/connect-wallet.md',
  'filter.md': 'getstrm--pace/docs/data-policy/rule-set/filter.md',
  'quickstart.md': 'stacks-network--docs/docs/build/clarinet/quickstart.md',
};
/** Their titles (each page's `# Heading`). */
const TITLES: Record<string, string> = { 'wallet.md': 'Connect Wallet', 'filter.md': 'Filter', 'quickstart.md': 'Quickstart' };

let g: GitServer;
beforeAll(async () => {
  g = await startGitServer();
});
afterAll(() => g?.close());
const { t, org } = useTestApp({ workers: ['git'], env: { WORKER_CONCURRENCY: '1' }, seedOrg: true });

const api = (method: string, p: string, body?: unknown) => t.api(method, p, { token: org.adminToken, body });

async function run(kind: 'import' | 'export', spaceId: string, body: Record<string, unknown>) {
  const r = await api('POST', `/v1/spaces/${spaceId}/git/${kind}`, body);
  expect(r.status, JSON.stringify(r.body)).toBe(204);
  return operationSettled(t, r.headers.get('location'), { token: org.adminToken, timeoutMs: 60_000 });
}

describe('git export of pages edited as documents', () => {
  it('keeps the options of code blocks inside tabs and steps', async () => {
    const files: Record<string, string> = {
      'README.md': '# Home\n\nWelcome.\n',
      'SUMMARY.md':
        '# Table of contents\n\n* [Home](README.md)\n* [Connect Wallet](wallet.md)\n* [Filter](filter.md)\n* [Quickstart](quickstart.md)\n',
    };
    for (const [name, fixture] of Object.entries(PAGES)) files[name] = await readFile(path.join(GITBOOK, fixture), 'utf8');
    const before = Object.fromEntries(Object.entries(PAGES).map(([name]) => [name, codeFrames(files[name])]));
    // The pages do hold frames inside containers (what was lost).
    const nested = Object.values(before)
      .flat()
      .filter((f) => f.within.some((w) => w === 'tab' || w === 'step'));
    expect(nested.length).toBeGreaterThanOrEqual(8);
    const url = await g.createRepo('code-options', { files });

    const s = (await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title: 'Code options', empty: true })).body.id as string;
    const imported = await run('import', s, { url, ref: 'refs/heads/main' });
    expect(imported.status, imported.error).toBe('succeeded');

    // Every page read as a document and written back as one, in a change request, then merged.
    const pages = (await api('GET', `/v1/spaces/${s}/content/pages`)).body.pages as { id: string; title: string }[];
    const cr = (await api('POST', `/v1/spaces/${s}/change-requests`, { subject: 'Edit as documents' })).body;
    const changes = [];
    for (const name of Object.keys(PAGES)) {
      const page = pages.find((p) => p.title === TITLES[name]);
      expect(page, name).toBeDefined();
      const read = await api('GET', `/v1/spaces/${s}/content/page/${page!.id}?format=document`);
      expect(read.status).toBe(200);
      // An edit: a paragraph added at the end, so the page is written again.
      const document = read.body.document;
      document.nodes.push({
        object: 'block',
        type: 'paragraph',
        data: {},
        nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Edited.', marks: [] }] }],
      });
      changes.push({ operation: 'update_page', page: page!.id, document: { document } });
    }
    const edit = await api('POST', `/v1/spaces/${s}/change-requests/${cr.id}/content`, { changes });
    expect(edit.status, JSON.stringify(edit.body)).toBeLessThan(300);
    const merged = await api('POST', `/v1/spaces/${s}/change-requests/${cr.id}/merge`);
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);

    const exported = await run('export', s, { url, ref: 'refs/heads/main', commitMessage: 'Edit as documents' });
    expect(exported.status, exported.error).toBe('succeeded');
    expect(exported.result.unchanged).toBe(false);

    const clone = await g.clone('code-options');
    for (const name of Object.keys(PAGES)) {
      const text = await readFile(path.join(clone, name), 'utf8');
      expect(text, name).toContain('Edited.');
      // The same frames (tag, options, fence, end tag), in the same containers and order.
      expect(codeFrames(text), name).toEqual(before[name]);
    }
  }, 180_000);
});
