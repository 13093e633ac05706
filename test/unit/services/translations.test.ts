// Translations (src/services/translations.ts) over in-memory repos: what create validates and
// records, runs joining a queued run, new instructions forgetting the memory, delete keeping the
// result space, and who sees what.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createTranslation,
  deleteTranslation,
  documentText,
  getTranslation,
  instructionsHash,
  listTranslations,
  runTranslation,
  updateTranslation,
  type InstructionsDocument,
} from '../../../src/services/translations.js';
import { PUBLIC_URL, type FakeApp } from '../../helpers/fakes/app.js';
import { tables } from '../../helpers/fakes/store.js';
import { addMember, freshOrg, rejection, seedOrg, seedSpace } from '../../helpers/fakes/seed.js';

vi.mock('../../../src/db/repos/organizations.js', () => import('../../helpers/fakes/repos/organizations.js'));
vi.mock('../../../src/db/repos/access.js', () => import('../../helpers/fakes/repos/access.js'));
vi.mock('../../../src/db/repos/spaces.js', () => import('../../helpers/fakes/repos/spaces.js'));
vi.mock('../../../src/db/repos/operations.js', () => import('../../helpers/fakes/repos/operations.js'));
vi.mock('../../../src/db/repos/translations.js', () => import('../../helpers/fakes/repos/translations.js'));

let app: FakeApp;
let org: string;
let source: ReturnType<typeof seedSpace>;
const creator = { userId: 'u-creator', tokenId: 't' };

beforeEach(() => {
  ({ app, org } = freshOrg(creator, 'create'));
  source = seedSpace(org, { title: 'Docs', language: 'en' });
});

const doc = (...lines: string[]): InstructionsDocument => ({
  object: 'document',
  data: {},
  nodes: lines.map((text) => ({ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text }] }] })),
});
const create = (over: Partial<Parameters<typeof createTranslation>[3]> = {}) =>
  createTranslation(app, creator, org, { language: 'fr', source: { space: source.id, language: 'en' }, ...over });

describe('documentText and instructionsHash', () => {
  it('read the text of a document, one line per block, and hash only that text', () => {
    const d = doc('  Use a formal tone. ', '', 'Keep product names.');
    expect(documentText(d)).toBe('Use a formal tone.\nKeep product names.');
    expect(documentText(null)).toBe('');
    expect(documentText(d, 5)).toBe('Use a');
    // The same words in another shape hash alike; other words do not.
    const reshaped = { ...d, data: { x: 1 }, nodes: [{ object: 'block', nodes: [{ text: 'Use a formal tone.' }] }, ...d.nodes.slice(2)] };
    expect(instructionsHash(reshaped)).toBe(instructionsHash(d));
    expect(instructionsHash(doc('Use a casual tone.'))).not.toBe(instructionsHash(d));
  });
});

describe('createTranslation', () => {
  it('records a pending translation and starts its first run', async () => {
    const out = await create({ instructions: doc('Formal.') });
    const [t] = tables.translations.values();
    const [op] = tables.operations.values();
    expect(out.translation).toMatchObject({
      object: 'translation',
      id: t.id,
      status: 'pending',
      language: 'fr',
      source: { space: source.id, language: 'en' },
      instructions: doc('Formal.'),
      stats: { runs: 0 },
      permissions: { view: true, edit: true },
    });
    expect(out.translation).not.toHaveProperty('result');
    expect(out.location).toBe(`${PUBLIC_URL}/v1/orgs/${org}/translations/${t.id}`);
    expect(out.operation).toBe(`${PUBLIC_URL}/v1/operations/${op.id}`);
    expect(t.instructions_hash).toBe(instructionsHash(doc('Formal.')));
    expect(op).toMatchObject({
      kind: 'translation.run',
      status: 'queued',
      target_type: 'translation',
      target_id: t.id,
      payload: { translationId: t.id },
    });
    expect(app.fakeJobs.enqueued).toEqual([{ id: op.id, kind: 'translation.run', queue: 'translation', data: { operationId: op.id } }]);
  });

  it('starts with empty instructions when none are given', async () => {
    const out = await create();
    expect(out.translation.instructions).toEqual({ object: 'document', data: {}, nodes: [] });
  });

  it('refuses a target language equal to the source, and a second translation of a space into one language', async () => {
    expect(await rejection(create({ language: 'en' }))).toMatchObject({
      kind: 'invalid',
      message: expect.stringContaining('body.language'),
    });
    await create();
    expect(await rejection(create())).toMatchObject({
      kind: 'invalid',
      message: expect.stringContaining('already has a translation into "fr"'),
    });
    expect(tables.translations.size).toBe(1);
    expect(app.fakeJobs.enqueued).toHaveLength(1);
  });

  it('refuses, in the same words, a source space of another organization and one the caller cannot read', async () => {
    const foreign = seedSpace(seedOrg(), { language: 'en' });
    const hidden = seedSpace(org, { default_level: null });
    const a = await rejection(create({ source: { space: foreign.id, language: 'en' } }));
    const b = await rejection(create({ source: { space: hidden.id, language: 'en' } }));
    expect(a).toMatchObject({
      kind: 'invalid',
      message: `Invalid request: body.source.space: space "${foreign.id}" does not exist in this organization`,
    });
    expect(b).toMatchObject({
      kind: 'invalid',
      message: `Invalid request: body.source.space: space "${hidden.id}" does not exist in this organization`,
    });
    expect(tables.translations.size).toBe(0);
  });

  it('is forbidden to members who may not create content', async () => {
    const reader = addMember(org, 'u-reader', 'read');
    expect(
      await rejection(createTranslation(app, reader, org, { language: 'fr', source: { space: source.id, language: 'en' } })),
    ).toMatchObject({
      kind: 'forbidden',
    });
  });
});

describe('runTranslation', () => {
  it('joins the run still queued instead of starting a second one', async () => {
    const { translation, operation } = await create();
    const again = await runTranslation(app, creator, org, translation.id);
    expect(again).toBe(operation);
    expect(tables.operations.size).toBe(1);
    expect(app.fakeJobs.enqueued).toHaveLength(1);
  });

  it('starts and enqueues a new run once the queued one has started', async () => {
    const { translation, operation } = await create();
    [...tables.operations.values()][0].status = 'running';
    const next = await runTranslation(app, creator, org, translation.id);
    expect(next).not.toBe(operation);
    expect(tables.operations.size).toBe(2);
    expect(app.fakeJobs.enqueued.map((j) => j.data.operationId)).toEqual([...tables.operations.keys()]);
  });

  it('is forbidden to readers and a 404 for a translation of another organization', async () => {
    const { translation } = await create();
    const reader = addMember(org, 'u-reader', 'read');
    expect(await rejection(runTranslation(app, reader, org, translation.id))).toMatchObject({ kind: 'forbidden' });
    const other = seedOrg();
    addMember(other, creator.userId, 'admin');
    expect(await rejection(runTranslation(app, creator, other, translation.id))).toMatchObject({ kind: 'not-found' });
  });
});

describe('updateTranslation', () => {
  it('forgets the segment memory when the instructions say something else, and only then', async () => {
    const { translation } = await create({ instructions: doc('Formal.') });
    tables.translationMemory.set(translation.id, new Map([['k', 'v']]));

    const same = await updateTranslation(app, creator, org, translation.id, { ...doc('Formal.'), data: { note: 'reformatted' } });
    expect(same.instructions).toMatchObject({ data: { note: 'reformatted' } });
    expect(tables.translationMemory.get(translation.id)?.size).toBe(1);

    await updateTranslation(app, creator, org, translation.id, doc('Casual.'));
    expect(tables.translationMemory.has(translation.id)).toBe(false);
    expect(tables.translations.get(translation.id)!.instructions_hash).toBe(instructionsHash(doc('Casual.')));
  });
});

describe('deleteTranslation', () => {
  it('deletes the translation (true) but keeps its result space; false when there was none', async () => {
    const { translation } = await create();
    const result = seedSpace(org, { language: 'fr' });
    tables.translations.get(translation.id)!.result_space_id = result.id;
    expect(await deleteTranslation(app, creator, org, translation.id)).toBe(true);
    expect(tables.translations.size).toBe(0);
    expect(tables.spaces.has(result.id)).toBe(true);
    expect(await deleteTranslation(app, creator, org, translation.id)).toBe(false);
  });

  it("leaves another organization's translation alone, and is forbidden to readers", async () => {
    const { translation } = await create();
    const other = seedOrg();
    addMember(other, creator.userId, 'admin');
    expect(await deleteTranslation(app, creator, other, translation.id)).toBe(false);
    const reader = addMember(org, 'u-reader', 'read');
    expect(await rejection(deleteTranslation(app, reader, org, translation.id))).toMatchObject({ kind: 'forbidden' });
    expect(tables.translations.size).toBe(1);
  });
});

describe('listTranslations and getTranslation', () => {
  it('show a member only the translations whose source space they can read', async () => {
    const secret = seedSpace(org, { title: 'Secret', language: 'en', default_level: null });
    const admin = addMember(org, 'u-admin', 'admin');
    await create();
    const hidden = await createTranslation(app, admin, org, { language: 'de', source: { space: secret.id, language: 'en' } });
    const member = addMember(org, 'u-member', 'read');

    expect((await listTranslations(app, member, org, {})).items.map((t: any) => t.language)).toEqual(['fr']);
    expect((await listTranslations(app, admin, org, {})).items.map((t: any) => t.language)).toEqual(['fr', 'de']);
    expect(await rejection(getTranslation(app, member, org, hidden.translation.id))).toMatchObject({ kind: 'not-found' });
  });
});
