// The organization's translation glossary (src/services/translation-glossary.ts) over in-memory
// repos: batches applied all or nothing, the 5000-entry bound, who may change it, and the pairs
// (and their hash) a run of one language pair gets.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  getGlossaryEntry,
  glossaryFor,
  listGlossary,
  MAX_GLOSSARY_ENTRIES,
  updateGlossary,
} from '../../../src/services/translation-glossary.js';
import { PUBLIC_URL, type FakeApp } from '../../helpers/fakes/app.js';
import { now, tables } from '../../helpers/fakes/store.js';
import { addMember, freshOrg, rejection, seedOrg } from '../../helpers/fakes/seed.js';

vi.mock('../../../src/db/repos/organizations.js', () => import('../../helpers/fakes/repos/organizations.js'));
vi.mock('../../../src/db/repos/translations.js', () => import('../../helpers/fakes/repos/translations.js'));

let app: FakeApp;
let org: string;
const creator = { userId: 'u-creator', tokenId: 't' };

beforeEach(() => {
  ({ app, org } = freshOrg(creator, 'create'));
});

const entries = () => [...tables.glossary.values()].filter((e) => e.organization_id === org).map((e) => e.translations);
function seedEntries(n: number, orgId = org) {
  for (let i = 0; i < n; i++) {
    const at = now();
    tables.glossary.set(`e${i}`, {
      id: `e${i}`,
      organization_id: orgId,
      translations: { en: `term ${i}` },
      created_at: at,
      updated_at: at,
    });
  }
}

describe('updateGlossary', () => {
  it('applies inserts, updates and deletes in order', async () => {
    await updateGlossary(app, creator, org, [
      { type: 'insert', translations: { en: 'workspace', fr: 'espace' } },
      { type: 'insert', translations: { en: 'site', fr: 'site' } },
    ]);
    const [ws, site] = [...tables.glossary.values()];
    await updateGlossary(app, creator, org, [
      { type: 'update', id: ws.id, translations: { en: 'workspace', fr: 'espace de travail' } },
      { type: 'delete', id: site.id },
      { type: 'delete', id: 'already-gone' },
    ]);
    expect(entries()).toEqual([{ en: 'workspace', fr: 'espace de travail' }]);
  });

  it('changes nothing when one operation of the batch is refused, naming it', async () => {
    seedEntries(1);
    const err = await rejection(
      updateGlossary(app, creator, org, [
        { type: 'insert', translations: { en: 'new' } },
        { type: 'delete', id: 'e0' },
        { type: 'update', id: 'missing', translations: { en: 'x' } },
      ]),
    );
    expect(err).toMatchObject({ kind: 'invalid', message: 'Invalid request: body.operations[2].id: glossary entry "missing" not found' });
    expect(entries()).toEqual([{ en: 'term 0' }]);
  });

  it("does not update or delete another organization's entries", async () => {
    const other = seedOrg();
    seedEntries(1, other);
    expect(await rejection(updateGlossary(app, creator, org, [{ type: 'update', id: 'e0', translations: { en: 'mine' } }]))).toMatchObject({
      kind: 'invalid',
    });
    await updateGlossary(app, creator, org, [{ type: 'delete', id: 'e0' }]);
    expect(tables.glossary.get('e0')!.translations).toEqual({ en: 'term 0' });
  });

  it(`holds at most ${MAX_GLOSSARY_ENTRIES} entries, counting the deletes of the same batch`, async () => {
    seedEntries(MAX_GLOSSARY_ENTRIES);
    const err = await rejection(updateGlossary(app, creator, org, [{ type: 'insert', translations: { en: 'one more' } }]));
    expect(err).toMatchObject({ kind: 'invalid', message: expect.stringContaining(`at most ${MAX_GLOSSARY_ENTRIES} entries`) });
    expect(tables.glossary.size).toBe(MAX_GLOSSARY_ENTRIES);

    await updateGlossary(app, creator, org, [
      { type: 'delete', id: 'e1' },
      { type: 'insert', translations: { en: 'one more' } },
    ]);
    expect(tables.glossary.size).toBe(MAX_GLOSSARY_ENTRIES);
  });

  it('is forbidden to members who may not create content; they may read it', async () => {
    seedEntries(1);
    const reader = addMember(org, 'u-reader', 'read');
    expect(await rejection(updateGlossary(app, reader, org, [{ type: 'delete', id: 'e0' }]))).toMatchObject({ kind: 'forbidden' });
    expect(tables.glossary.has('e0')).toBe(true);
    expect(await getGlossaryEntry(app, reader, org, 'e0')).toMatchObject({
      object: 'glossary-entry',
      id: 'e0',
      translations: { en: 'term 0' },
      urls: { location: `${PUBLIC_URL}/v1/orgs/${org}/translations-glossary/e0` },
    });
  });
});

describe('listGlossary and getGlossaryEntry', () => {
  it('orders by the term in a language, entries without it last', async () => {
    await updateGlossary(app, creator, org, [
      { type: 'insert', translations: { en: 'b', fr: 'zèbre' } },
      { type: 'insert', translations: { en: 'c' } },
      { type: 'insert', translations: { en: 'a', fr: 'abeille' } },
    ]);
    const order = async (orderBy?: string) => (await listGlossary(app, creator, org, { orderBy })).items.map((e: any) => e.translations.en);
    expect(await order()).toEqual(['b', 'c', 'a']);
    expect(await order('fr')).toEqual(['a', 'b', 'c']);
    expect(await order('en')).toEqual(['a', 'b', 'c']);
  });

  it("is a 404 for another organization's entry", async () => {
    seedEntries(1, seedOrg());
    expect(await rejection(getGlossaryEntry(app, creator, org, 'e0'))).toMatchObject({ kind: 'not-found' });
  });
});

describe('glossaryFor', () => {
  it('gives a run the pairs having both its languages, sorted, and a hash that moves only when they do', async () => {
    const put = (translations: Record<string, string>) => updateGlossary(app, creator, org, [{ type: 'insert', translations }]);
    expect(await glossaryFor(app.db, org, 'en', 'fr')).toEqual({ pairs: [], hash: '' });

    await put({ en: 'workspace', fr: 'espace' });
    await put({ en: 'billing', de: 'Abrechnung' });
    await put({ en: 'account', fr: 'compte' });
    const first = await glossaryFor(app.db, org, 'en', 'fr');
    expect(first.pairs).toEqual([
      { source: 'account', target: 'compte' },
      { source: 'workspace', target: 'espace' },
    ]);
    expect(first.hash).toMatch(/^[\w-]{24}$/);

    // An entry of another pair leaves this pair's hash alone; one of this pair moves it.
    await put({ en: 'invoice', de: 'Rechnung' });
    expect((await glossaryFor(app.db, org, 'en', 'fr')).hash).toBe(first.hash);
    await put({ en: 'site', fr: 'site' });
    expect((await glossaryFor(app.db, org, 'en', 'fr')).hash).not.toBe(first.hash);
    // The other direction of the pair is a pair of its own.
    expect((await glossaryFor(app.db, org, 'fr', 'en')).pairs[0]).toEqual({ source: 'compte', target: 'account' });
  });
});
