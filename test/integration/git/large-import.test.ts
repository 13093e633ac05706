// Big and imperfect repositories import, through the API and a real git remote: a generated
// 10,000-page repository (SUMMARY.md of `## Part` groups, entries nested two levels, 2 KB pages)
// whose SUMMARY.md used to be refused as too complex; a page past the content limits, kept with a
// warning; a .gitbook.yaml redirect without a target (as in a real repository GitBook publishes),
// skipped with a warning. And the same adversarial bodies written through the API: a 400 naming the
// limit, at once (the scan used to take seconds of a Markdown thread before refusing them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { startGitServer, type GitServer } from '../../helpers/git-server.js';
import { operationSettled } from '../../helpers/operations.js';

let g: GitServer;
beforeAll(async () => {
  g = await startGitServer();
});
afterAll(() => g.close());
const { t, org } = useTestApp({ workers: ['git'], env: { WORKER_CONCURRENCY: '1' }, seedOrg: true });

const api = (method: string, p: string, body?: unknown) => t.api(method, p, { token: org.adminToken, body });

async function newSpace(title: string) {
  const r = await api('POST', `/v1/orgs/${org.orgId}/spaces`, { title, empty: true });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as string;
}

async function importRepo(spaceId: string, url: string) {
  const r = await api('POST', `/v1/spaces/${spaceId}/git/import`, { url, ref: 'refs/heads/main' });
  expect(r.status, JSON.stringify(r.body)).toBe(204);
  return operationSettled(t, r.headers.get('location')!, { token: org.adminToken, timeoutMs: 150_000 });
}

const walk = (pages: any[]): any[] => pages.flatMap((p) => [p, ...walk(p.pages ?? [])]);

/** `- ` fifty thousand times, then `x`: 100 KB of list markers on one line. */
const MARKERS = `${'- '.repeat(50_000)}x`;

/** A 10,000-page repository: groups of 100 entries nested up to two levels, 2 KB pages. */
function bigRepository(pages: number): Record<string, string> {
  const files: Record<string, string> = { 'README.md': '# Home\n\nWelcome.\n' };
  const summary = ['# Table of contents', '', '* [Home](README.md)'];
  const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(35);
  for (let n = 0; n < pages; n++) {
    const part = Math.floor(n / 100);
    if (n % 100 === 0) summary.push('', `## Part ${part}`, '');
    const file = `part-${part}/page-${n}.md`;
    summary.push(`${'  '.repeat((n % 100) % 3)}* [Page ${n}](${file})`);
    files[file] = `# Page ${n}\n\n${filler}\n`;
  }
  summary.push('', '## Limits', '', '* [Hostile](hostile.md)');
  files['hostile.md'] = `# Hostile\n\n${MARKERS}\n`;
  files['SUMMARY.md'] = `${summary.join('\n')}\n`;
  return files;
}

describe('import of large and imperfect repositories', () => {
  it('imports a 10,000-page repository, keeping a page past the content limits with a warning', { timeout: 240_000 }, async () => {
    const url = await g.createRepo('ten-thousand', { files: bigRepository(10_000) });
    const s = await newSpace('Ten thousand');
    const op = await importRepo(s, url);
    expect(op.status, op.error).toBe('succeeded');
    expect(op.result.warnings).toEqual([
      "hostile.md: nesting deeper than 32 levels (line 3) (the 'depth' limit of a page body); the page is imported as written and shown as plain text",
    ]);
    const pages = (await api('GET', `/v1/spaces/${s}/content/pages`)).body.pages;
    expect(pages.filter((p: any) => p.type === 'group').map((p: any) => p.title)).toEqual([
      ...Array.from({ length: 100 }, (_, i) => `Part ${i}`),
      'Limits',
    ]);
    const documents = walk(pages).filter((p) => p.type === 'document');
    expect(documents).toHaveLength(10_002);
    const part7 = pages.find((p: any) => p.title === 'Part 7');
    expect(part7.pages.map((p: any) => p.title).slice(0, 2)).toEqual(['Page 700', 'Page 703']);
    expect(part7.pages[0].pages.map((p: any) => p.title)).toEqual(['Page 701']);
    expect(part7.pages[0].pages[0].pages.map((p: any) => p.title)).toEqual(['Page 702']);
    // The hostile page is there, its body as written.
    const hostile = documents.find((p) => p.title === 'Hostile');
    const body = await api('GET', `/v1/spaces/${s}/content/page/${hostile.id}?format=markdown`);
    expect(body.status).toBe(200);
    expect(body.body.markdown).toBe(`${MARKERS}\n`);
  });

  it('skips a .gitbook.yaml redirect without a target, with a warning naming the file and the entry', async () => {
    const url = await g.createRepo('empty-redirect', {
      files: {
        '.gitbook.yaml': 'redirects:\n  installation/updating/from-0-x-x-to-0-40-0:\n  old/setup: guide.md\n',
        'README.md': '# Home\n',
        'guide.md': '# Guide\n',
        'SUMMARY.md': '* [Home](README.md)\n* [Guide](guide.md)\n',
      },
    });
    const s = await newSpace('Empty redirect');
    const op = await importRepo(s, url);
    expect(op.status, op.error).toBe('succeeded');
    expect(op.result.warnings).toEqual([
      ".gitbook.yaml redirects: the target of 'installation/updating/from-0-x-x-to-0-40-0' must be a path; the redirect is ignored",
    ]);
    const pages = (await api('GET', `/v1/spaces/${s}/content/pages`)).body.pages;
    expect(pages.map((p: any) => p.title)).toEqual(['Home', 'Guide']);
  });
});

describe('adversarial page bodies through the API', () => {
  const shapes: Record<string, string> = {
    '- markers': MARKERS,
    '* markers': `${'* '.repeat(50_000)}x`,
    '+ markers': `${'+ '.repeat(50_000)}x`,
    'ordered markers': `${'1. '.repeat(33_000)}x`,
    'quotes and markers': `${'> - '.repeat(25_000)}x`,
  };

  it('refuses each with a 400 naming the limit, and accepts the same markers within it', async () => {
    const s = await newSpace('Markers');
    const c = (await api('POST', `/v1/spaces/${s}/change-requests`, { subject: 'Markers' })).body;
    const write = (markdown: string) =>
      api('POST', `/v1/spaces/${s}/change-requests/${c.id}/content`, {
        changes: [{ operation: 'insert_page', title: 'Markers', document: { markdown } }],
      });
    for (const [name, md] of Object.entries(shapes)) {
      const r = await write(md);
      expect(r.status, name).toBe(400);
      expect(r.body.error.message, name).toMatch(
        /^Invalid request: body\.changes\[0\]\.document\.markdown: nesting deeper than 32 levels \(line 1\)$/,
      );
    }
    const ok = await write(`${'- '.repeat(32)}x`);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });
});
