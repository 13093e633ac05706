// One run of a translation (src/services/translation-run.ts) over in-memory repos, real page trees
// and the built-in pseudo-localisation provider: the first run makes the result space, later runs
// translate only what changed, and a failed run leaves the previous result and status as they were.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { revisionSnapshot } from '../../../src/content/commit.js';
import { loadBodies } from '../../../src/content/snapshot.js';
import { JobFailure, JobSkipped } from '../../../src/queue/errors.js';
import { pseudoLocalize } from '../../../src/translate/pseudo.js';
import { runTranslation, type RunHooks } from '../../../src/services/translation-run.js';
import { instructionsHash } from '../../../src/services/translations.js';
import { fakeApp, type FakeApp } from '../../helpers/fakes/app.js';
import { changedSpaces } from '../../helpers/fakes/content-hooks.js';
import { key, now, resetTables, tables, type StoredTranslation } from '../../helpers/fakes/store.js';
import { rejection, seedContent, seedOrg, seedSpace } from '../../helpers/fakes/seed.js';
import type { Draft } from '../../../src/content/draft.js';

vi.mock('../../../src/db/repos/translations.js', () => import('../../helpers/fakes/repos/translations.js'));
vi.mock('../../../src/db/repos/operations.js', () => import('../../helpers/fakes/repos/operations.js'));
vi.mock('../../../src/db/repos/spaces.js', () => import('../../helpers/fakes/repos/spaces.js'));
vi.mock('../../../src/db/repos/revisions.js', () => import('../../helpers/fakes/repos/revisions.js'));
vi.mock('../../../src/db/repos/space-blobs.js', () => import('../../helpers/fakes/repos/space-blobs.js'));
vi.mock('../../../src/db/repos/siblings.js', () => import('../../helpers/fakes/repos/siblings.js'));
vi.mock('../../../src/db/repos/content-objects.js', () => import('../../helpers/fakes/repos/content-objects.js'));
vi.mock('../../../src/services/content-hooks.js', () => import('../../helpers/fakes/content-hooks.js'));

let app: FakeApp;
let org: string;
let source: ReturnType<typeof seedSpace>;
let translation: StoredTranslation;
let progress: number[];

function hooks(over: Partial<RunHooks> = {}): RunHooks {
  return {
    operationId: `op-${now().getTime()}`,
    createdBy: 'u-creator',
    log: app.log,
    progress: async (f) => void progress.push(f),
    fence: async () => {},
    ...over,
  };
}

const pages = (d: Draft) => {
  d.insertPage(null, { id: 'intro', title: 'Introduction', description: 'Start here', markdown: 'Welcome to the docs.\n' });
  d.insertPage(null, { id: 'guide', title: 'Guide', markdown: 'Install the tool.\n\nThen run it.\n' });
  d.insertPage('guide', { id: 'faq', title: 'FAQ', markdown: 'Ask us anything.\n' });
  d.insertFile({ id: 'logo', name: 'logo.png', contentType: 'image/png', size: 3, blobKey: 'files/logo', sha256: 'a'.repeat(64) });
};

beforeEach(async () => {
  resetTables();
  changedSpaces.length = 0;
  progress = [];
  app = fakeApp();
  org = seedOrg();
  source = seedSpace(org, { title: 'Docs', language: 'en', visibility: 'public' });
  await seedContent(source.id, pages);
  tables.spaceBlobs.add(key(source.id, 'files/logo'));
  const at = now();
  translation = {
    id: 'tr-1',
    organization_id: org,
    source_space_id: source.id,
    source_language: 'en',
    language: 'fr',
    instructions: { object: 'document', data: {}, nodes: [] },
    instructions_hash: instructionsHash(null),
    status: 'pending',
    result_space_id: null,
    result_revision_id: null,
    runs: 0,
    total_words: 0,
    total_duration: 0,
    latest_run_duration: 0,
    latest_pages: 0,
    latest_words: 0,
    last_error: null,
    last_source: null,
    created_by: 'u-creator',
    created_at: at,
    updated_at: at,
  };
  tables.translations.set(translation.id, translation);
});

const row = () => tables.translations.get(translation.id)!;
/** The result space's current pages: id -> [title, body]. */
async function result(): Promise<Record<string, [string, string]>> {
  const space = tables.spaces.get(row().result_space_id!)!;
  const { snapshot } = await revisionSnapshot(app.db, space.id, space.revision_id);
  const bodies = await loadBodies(
    app.db,
    space.id,
    snapshot.ordered.map((p) => p.node),
  );
  return Object.fromEntries(snapshot.ordered.map((p) => [p.node.id, [p.node.title, bodies.get(p.node.id) ?? '']]));
}
/** Edit the source space as an editor would: a new current revision. */
const editSource = (build: (d: Draft) => void) => seedContent(source.id, build);

describe('the first run', () => {
  it('creates the result space in the target language and translates every page', async () => {
    const out = await runTranslation(app, translation.id, hooks());
    const t = row();
    const space = tables.spaces.get(t.result_space_id!)!;
    expect(space).toMatchObject({ title: 'Docs (fr)', language: 'fr', visibility: 'private', organization_id: org, parent_id: null });
    expect(out).toMatchObject({ translation: translation.id, space: space.id, revision: space.revision_id, pages: 3, warnings: 0 });
    expect(out.words).toBeGreaterThan(0);
    expect(t).toMatchObject({ status: 'completed', result_revision_id: space.revision_id, runs: 1, latest_pages: 3, last_error: null });

    const pagesNow = await result();
    expect(Object.keys(pagesNow)).toEqual(['intro', 'guide', 'faq']);
    expect(pagesNow.intro[0]).toBe(pseudoLocalize('Introduction'));
    expect(pagesNow.guide[1]).toContain(pseudoLocalize('Then run it.'));
    // The files come along (the bytes are shared, not copied).
    expect(tables.spaceBlobs.has(key(space.id, 'files/logo'))).toBe(true);
    expect(changedSpaces).toEqual([{ spaceId: space.id, via: 'change' }]);
    expect(progress.at(-1)).toBe(1);
    expect(tables.translationPages.get(translation.id)?.size).toBe(3);
  });
});

describe('later runs', () => {
  it('do nothing when neither the source nor the settings changed', async () => {
    const first = await runTranslation(app, translation.id, hooks());
    changedSpaces.length = 0;
    const revisions = tables.revisions.size;
    const second = await runTranslation(app, translation.id, hooks());
    expect(second).toMatchObject({ space: first.space, revision: first.revision, pages: 0, words: 0 });
    expect(tables.revisions.size).toBe(revisions);
    expect(row()).toMatchObject({ status: 'completed', runs: 2, latest_pages: 0 });
    expect(changedSpaces).toEqual([]);
  });

  it('translate only the pages whose text changed, and drop pages gone from the source', async () => {
    await runTranslation(app, translation.id, hooks());
    const before = await result();
    await editSource((d) => {
      d.insertPage(null, { id: 'intro', title: 'Introduction', description: 'Start here', markdown: 'Welcome to the new docs.\n' });
      d.insertPage(null, { id: 'guide', title: 'Guide', markdown: 'Install the tool.\n\nThen run it.\n' });
    });
    const out = await runTranslation(app, translation.id, hooks());
    expect(out.pages).toBe(1);
    const after = await result();
    expect(Object.keys(after)).toEqual(['intro', 'guide']);
    expect(after.intro[1]).toContain(pseudoLocalize('Welcome to the new docs.'));
    expect(after.guide).toEqual(before.guide);
    expect([...tables.translationPages.get(translation.id)!.keys()].sort()).toEqual(['guide', 'intro']);
  });

  it('translate everything again after new instructions or a glossary change for the pair', async () => {
    await runTranslation(app, translation.id, hooks());
    row().instructions_hash = instructionsHash({ nodes: [{ text: 'Be formal.' }] });
    expect((await runTranslation(app, translation.id, hooks())).pages).toBe(3);

    const at = now();
    tables.glossary.set('g', { id: 'g', organization_id: org, translations: { en: 'docs', de: 'Doku' }, created_at: at, updated_at: at });
    expect((await runTranslation(app, translation.id, hooks())).pages).toBe(0);
    tables.glossary.set('g', { id: 'g', organization_id: org, translations: { en: 'docs', fr: 'doc' }, created_at: at, updated_at: at });
    expect((await runTranslation(app, translation.id, hooks())).pages).toBe(3);
  });
});

describe('a failed run', () => {
  let provider: http.Server;
  let providerUrl: string;
  beforeAll(async () => {
    // A translation back-end that refuses every request (a permanent error: no retry).
    provider = http.createServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'unsupported' }));
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => provider.close(() => resolve())));
  const failingApp = () =>
    fakeApp({
      TRANSLATION_PROVIDER: 'libretranslate',
      TRANSLATION_URL: providerUrl,
      TRANSLATION_RETRIES: '0',
      TRANSLATION_ALLOW_PRIVATE: 'true',
    });

  it('leaves the previous result and goes back to completed, with the reason', async () => {
    const first = await runTranslation(app, translation.id, hooks());
    const before = await result();
    await editSource((d) => d.insertPage(null, { id: 'intro', title: 'Changed', markdown: 'Changed text.\n' }));

    const err = await rejection(runTranslation(failingApp(), translation.id, hooks()));
    expect(err).toBeInstanceOf(JobFailure);
    expect(err.message).toMatch(/^Translation provider failed: /);
    expect(row()).toMatchObject({ status: 'completed', result_revision_id: first.revision, runs: 1 });
    expect(row().last_error).toContain('HTTP 400');
    expect(await result()).toEqual(before);
  });

  it('before any result, goes back to pending and creates no result space', async () => {
    const spaces = tables.spaces.size;
    expect(await rejection(runTranslation(failingApp(), translation.id, hooks()))).toBeInstanceOf(JobFailure);
    expect(row()).toMatchObject({ status: 'pending', result_space_id: null, result_revision_id: null });
    expect(tables.spaces.size).toBe(spaces);
  });

  it('records nothing when the run loses its operation before committing', async () => {
    const lost = new Error('Operation op-1 was taken over by another run');
    const err = await rejection(runTranslation(app, translation.id, hooks({ fence: async () => Promise.reject(lost) })));
    expect(err).toBe(lost);
    // The transaction rolled back: no result space, no page hashes, no memory; the status is back.
    expect(row()).toMatchObject({ status: 'pending', result_space_id: null, last_error: lost.message });
    expect(tables.spaces.size).toBe(1);
    expect(tables.translationPages.get(translation.id)?.size ?? 0).toBe(0);
    expect(tables.translationMemory.get(translation.id)?.size ?? 0).toBe(0);
  });

  it('fails when the source space is gone, and is skipped when the translation is', async () => {
    tables.spaces.get(source.id)!.deleted_at = new Date();
    const err = await rejection(runTranslation(app, translation.id, hooks()));
    expect(err).toBeInstanceOf(JobFailure);
    expect(row()).toMatchObject({ status: 'pending', last_error: expect.stringContaining('was deleted') });

    tables.translations.delete(translation.id);
    expect(await rejection(runTranslation(app, translation.id, hooks()))).toBeInstanceOf(JobSkipped);
  });
});

describe('one run at a time', () => {
  it('waits for an earlier run of the same translation that still holds its lease', async () => {
    const op = (id: string, status: 'running' | 'queued', createdAt: Date) =>
      tables.operations.set(id, {
        id,
        organization_id: org,
        kind: 'translation.run',
        queue: 'translation',
        status,
        target_type: 'translation',
        target_id: translation.id,
        payload: { translationId: translation.id },
        progress: 0,
        result: null,
        error: null,
        attempts: 1,
        created_by: null,
        created_at: createdAt,
        updated_at: createdAt,
        started_at: createdAt,
        finished_at: null,
        lease_owner: 'w1',
        lease_expires_at: new Date(Date.now() + 60_000),
      });
    op('earlier', 'running', now());
    op('mine', 'running', now());
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    try {
      let done = false;
      const run = runTranslation(app, translation.id, hooks({ operationId: 'mine' })).then(() => (done = true));
      await vi.advanceTimersByTimeAsync(5_000);
      expect(done).toBe(false);
      expect(row().status).toBe('pending');
      tables.operations.get('earlier')!.status = 'succeeded';
      await vi.advanceTimersByTimeAsync(1_000);
      await run;
    } finally {
      vi.useRealTimers();
    }
    expect(row().status).toBe('completed');
  });
});
