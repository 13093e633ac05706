// The PDF render service (the `pdf.render` job's body) without PostgreSQL, Redis or Chromium: the
// render, space and change request rows live in Maps behind the repositories' functions, the
// export's HTML and the printing are fakes, the bytes go to a memory BlobStore.
import { beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import type { AppContext } from '../../../src/context.js';
import { PageRenderError } from '../../../src/render/document.js';
import { JobFailure, JobSkipped } from '../../../src/queue/errors.js';
import { renderPdfExport } from '../../../src/services/pdf-render.js';
import { asJobFailure } from '../../../jobs/failures.js';
import { memoryBlobs, type MemoryBlobs } from '../../helpers/memory-blobs.js';

const fake = vi.hoisted(() => ({
  renders: new Map<string, Record<string, unknown>>(),
  spaces: new Map<string, { title: string }>(),
  changeRequests: new Map<string, { number: number; subject: string | null }>(),
  /** What buildExport does: the export it returns, or the error it throws. */
  build: null as null | ((input: Record<string, unknown>, progress: (f: number) => Promise<void>) => Promise<unknown>),
  /** What printPdf does (Chromium). */
  print: null as null | ((html: string) => Promise<Buffer>),
}));

vi.mock('../../../src/db/repos/pdf-renders.js', () => {
  const owned = (id: string, operationId: string) => {
    const row = fake.renders.get(id);
    return row && row.operation_id === operationId && row.status === 'pending' ? row : null;
  };
  return {
    getRender: async (_db: unknown, id: string) => (fake.renders.has(id) ? { ...fake.renders.get(id) } : null),
    markRenderReady: async (_db: unknown, id: string, operationId: string, f: { blobKey: string; size: number; pageCount: number }) => {
      const row = owned(id, operationId);
      if (row) Object.assign(row, { status: 'ready', blob_key: f.blobKey, size: f.size, page_count: f.pageCount });
      return !!row;
    },
    markRenderFailed: async (_db: unknown, id: string, operationId: string, error: string) => {
      const row = owned(id, operationId);
      if (row) Object.assign(row, { status: 'failed', error });
      return !!row;
    },
  };
});

vi.mock('../../../src/db/repos/spaces.js', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  getSpace: async (_db: unknown, id: string) => fake.spaces.get(id) ?? null,
}));

vi.mock('../../../src/db/repos/change-requests.js', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  getChangeRequest: async (_db: unknown, _spaceId: string, id: string) => fake.changeRequests.get(id) ?? null,
}));

vi.mock('../../../src/render/document.js', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  buildExport: async (_app: unknown, input: Record<string, unknown>, progress: (f: number) => Promise<void>) =>
    fake.build!(input, progress),
}));

vi.mock('../../../src/render/pdf.js', () => ({
  printPdf: async (html: string) => fake.print!(html),
  pdfPageCount: (pdf: Buffer) => Number(/pages=(\d+)/.exec(pdf.toString('latin1'))?.[1] ?? 0),
}));

let blobs: MemoryBlobs;
let app: AppContext;
let run: { operation: { id: string; created_by: string | null }; progress: Mock<(fraction: number) => Promise<void>> };
let built: Record<string, unknown>[];

function addRender(fields: Record<string, unknown> = {}): string {
  const id = `r${fake.renders.size + 1}`;
  fake.renders.set(id, {
    id,
    space_id: 'space1',
    revision_id: 'rev1',
    change_request_id: null,
    scope: 'all',
    organization_id: 'org1',
    operation_id: 'op1',
    status: 'pending',
    blob_key: null,
    error: null,
    ...fields,
  });
  return id;
}

const render = (id: string) => fake.renders.get(id)!;
const caught = async (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as Error,
  );

beforeEach(() => {
  fake.renders.clear();
  fake.spaces.clear();
  fake.changeRequests.clear();
  fake.spaces.set('space1', { title: 'Handbook' });
  built = [];
  fake.build = async (input, progress) => {
    built.push(input);
    await progress(1);
    return { html: '<h1>Handbook</h1>', pages: 2 };
  };
  fake.print = async () => Buffer.from('%PDF-1.7 pages=3 %%EOF', 'latin1');
  blobs = memoryBlobs();
  app = { db: {}, blobs, config: { chromiumPath: '/usr/bin/chromium' } } as unknown as AppContext;
  run = { operation: { id: 'op1', created_by: null }, progress: vi.fn(async () => {}) };
});

describe('renderPdfExport', () => {
  it('prints the export, stores the PDF under its operation and marks the render ready', async () => {
    const id = addRender();
    const result = await renderPdfExport(app, id, run);

    const key = `pdf/space1/${id}/op1.pdf`;
    const pdf = await blobs.get(key);
    expect(pdf?.toString('latin1')).toBe('%PDF-1.7 pages=3 %%EOF');
    expect(result).toEqual({ renderId: id, sections: 2, pdfPages: 3, size: pdf!.length });
    expect(render(id)).toMatchObject({ status: 'ready', blob_key: key, size: pdf!.length, page_count: 3 });
    expect(built).toEqual([
      {
        spaceId: 'space1',
        revisionId: 'rev1',
        organizationId: 'org1',
        scope: { kind: 'all' },
        title: 'Handbook',
        subtitle: ['Main content', 'Revision rev1'],
      },
    ]);
    expect(run.progress.mock.calls).toEqual([[0.5], [0.5], [0.9]]);
  });

  it("names a change request's export after it", async () => {
    fake.changeRequests.set('cr1', { number: 4, subject: 'Fix typos' });
    const id = addRender({ change_request_id: 'cr1', scope: 'page:p1' });
    await renderPdfExport(app, id, run);
    expect(built[0]).toMatchObject({ scope: { kind: 'page', pageId: 'p1' }, subtitle: ['Change request #4: Fix typos', 'Revision rev1'] });
  });

  it('returns at once for a render its operation already finished', async () => {
    const id = addRender({ status: 'ready' });
    expect(await renderPdfExport(app, id, run)).toEqual({ renderId: id, alreadyRendered: true });
    expect(built).toEqual([]);
  });

  it('skips a render that belongs to a newer request, or whose render, space or change request is gone', async () => {
    const reasons = async (id: string) => ((await caught(renderPdfExport(app, id, run))) as JobSkipped).reason;
    expect(await reasons(addRender({ operation_id: 'op2' }))).toBe('Superseded by a newer request for the same PDF');
    expect(await reasons('nothing')).toBe('The PDF export no longer exists');
    expect(await reasons(addRender({ space_id: 'deleted' }))).toBe('The space was deleted');
    expect(await reasons(addRender({ change_request_id: 'deleted' }))).toBe('The change request was deleted');
    expect(built).toEqual([]);
    expect(blobs.objects.size).toBe(0);
  });

  it('a page that cannot be rendered fails the render for good with its reason; nothing is printed or stored', async () => {
    fake.build = async () => {
      throw new PageRenderError('Intro', 'image file f1 is missing');
    };
    let printed = false;
    fake.print = async () => ((printed = true), Buffer.from('x'));
    const id = addRender();
    const err = await caught(renderPdfExport(app, id, run));

    expect(err).toBeInstanceOf(PageRenderError);
    expect(render(id)).toMatchObject({ status: 'failed', error: "page 'Intro': image file f1 is missing" });
    const failure = await caught(Promise.reject(err).catch(asJobFailure));
    expect(failure).toBeInstanceOf(JobFailure);
    expect(failure!.message).toBe("page 'Intro': image file f1 is missing");
    expect(printed).toBe(false);
    expect(blobs.objects.size).toBe(0);
  });

  it('a Chromium failure is thrown as it is (retried) and leaves the render pending', async () => {
    fake.print = async () => {
      throw new Error('Navigation timeout of 120000 ms exceeded');
    };
    const id = addRender();
    const err = await caught(renderPdfExport(app, id, run));
    expect(err?.message).toBe('Navigation timeout of 120000 ms exceeded');
    expect(await caught(Promise.reject(err).catch(asJobFailure))).toBe(err);
    expect(render(id).status).toBe('pending');
  });

  it('superseded while printing: the bytes it stored are deleted and the newer request keeps the render', async () => {
    const id = addRender();
    fake.print = async () => {
      render(id).operation_id = 'op2';
      return Buffer.from('%PDF-1.7 pages=1', 'latin1');
    };
    const err = await caught(renderPdfExport(app, id, run));
    expect(err).toBeInstanceOf(JobSkipped);
    expect((err as JobSkipped).reason).toBe('Superseded by a newer request for the same PDF');
    expect(blobs.objects.size).toBe(0);
    expect(render(id)).toMatchObject({ status: 'pending', operation_id: 'op2' });
  });
});
