// Runs through a real adapter: the job against a loopback LibreTranslate. A second run after an
// edit sends exactly the edited segment; a provider that stays down fails the operation with its
// reason and leaves the previous result as it was.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { operationSettled } from '../../helpers/operations.js';
import { editContent } from '../../helpers/content.js';
import { startFakeProvider, type FakeProvider } from '../../helpers/translation-servers.js';

const KEY = 'lt-secret-key-123';
let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider('libretranslate', KEY);
});
afterAll(() => fake.close());
const { t, org } = useTestApp(() => ({
  workers: ['translation'],
  captureLogs: true,
  env: {
    TRANSLATION_PROVIDER: 'libretranslate',
    TRANSLATION_URL: fake.url,
    TRANSLATION_API_KEY: KEY,
    TRANSLATION_RETRIES: '2',
    TRANSLATION_BACKOFF_MS: '10',
    JOB_ATTEMPTS: '1',
  },
  seedOrg: true,
}));

const MD = ['First paragraph stays the same.', '', 'Second paragraph will change.', '', 'Third paragraph stays too.', ''].join('\n');

const operation = (location: string) => operationSettled(t, location, { token: org.adminToken });

it('sends only the edited segment on a re-run, and a provider outage fails the run without touching the result', async () => {
  const space = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Docs', empty: true } });
  let pageId = '';
  await editContent(t, space.body.id, (d) => {
    pageId = d.insertPage(null, { title: 'Guide', markdown: MD });
  });
  const created = await t.api('POST', `/v1/orgs/${org.orgId}/translations`, {
    token: org.adminToken,
    body: { language: 'de', source: { space: space.body.id, language: 'en' } },
  });
  expect(created.status).toBe(201);
  const first = await operation(created.headers.get('operation-location')!);
  expect(first.status).toBe('succeeded');
  expect(fake.segments().sort()).toEqual([
    'First paragraph stays the same.',
    'Guide',
    'Second paragraph will change.',
    'Third paragraph stays too.',
  ]);
  expect(fake.requests[0].body).toMatchObject({ source: 'en', target: 'de', format: 'html' });
  const tr = `/v1/orgs/${org.orgId}/translations/${created.body.id}`;
  const after1 = (await t.api('GET', tr, { token: org.adminToken })).body;

  await editContent(t, space.body.id, (d) => d.updatePage(pageId, { markdown: MD.replace('will change', 'has changed') }));
  const sentBefore = fake.segments().length;
  const run = await t.api('POST', `${tr}/run`, { token: org.adminToken });
  expect(run.status).toBe(204);
  expect((await operation(run.headers.get('location')!)).status).toBe('succeeded');
  expect(fake.segments().slice(sentBefore)).toEqual(['Second paragraph has changed.']);
  const after2 = (await t.api('GET', tr, { token: org.adminToken })).body;
  expect(after2.stats).toMatchObject({ runs: 2, latestPages: 1, latestWords: 4, totalPages: 1, totalWords: after1.stats.totalWords + 4 });

  // Down for good: retried, then the operation fails with the reason; the result stays as it was.
  await editContent(t, space.body.id, (d) => d.updatePage(pageId, { markdown: MD.replace('will change', 'changes again') }));
  fake.failNext(100, 503, '0');
  const failing = await t.api('POST', `${tr}/run`, { token: org.adminToken });
  const failed = await operation(failing.headers.get('location')!);
  fake.failNext(0, 0);
  expect(failed.status).toBe('failed');
  expect(failed.error).toMatch(/HTTP 503/);
  const after3 = (await t.api('GET', tr, { token: org.adminToken })).body;
  expect(after3.status).toBe('completed');
  expect(after3.result).toEqual(after2.result);
  expect(after3.stats).toEqual(after2.stats);
  // The key never reaches logs or API answers.
  expect(t.logs.join('\n')).not.toContain(KEY);
  expect(JSON.stringify([after3, failed])).not.toContain(KEY);
});

it('keeps a segment whose placeholders come back broken in the source language, counts it, and retries it on the next run', async () => {
  const space = await t.api('POST', `/v1/orgs/${org.orgId}/spaces`, { token: org.adminToken, body: { title: 'Code docs', empty: true } });
  await editContent(t, space.body.id, (d) => {
    d.insertPage(null, { title: 'Usage', markdown: 'Call `init()` first.\n' });
  });
  fake.breakNext(2); // the batch, then the segment asked again alone
  const created = await t.api('POST', `/v1/orgs/${org.orgId}/translations`, {
    token: org.adminToken,
    body: { language: 'fr', source: { space: space.body.id, language: 'en' } },
  });
  const first = await operation(created.headers.get('operation-location')!);
  expect(first.status).toBe('succeeded');
  expect(first.result).toMatchObject({ warnings: 1, pages: 1 });
  const tr = `/v1/orgs/${org.orgId}/translations/${created.body.id}`;
  const before = fake.segments().length;
  const run = await t.api('POST', `${tr}/run`, { token: org.adminToken });
  const second = await operation(run.headers.get('location')!);
  expect(second.result).toMatchObject({ warnings: 0, pages: 1, segments: 1 });
  expect(fake.segments().slice(before)).toEqual(['Call <x id="1"/> first.']);
});
