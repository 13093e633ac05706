// Website import: the work of the `import.website` job. Crawl (crawler.ts), download same-origin
// images, convert each page to Markdown with links between imported pages rewritten to
// `/pages/<id>` and images to `/files/<id>`, then write everything in one transaction as one new
// revision whose id was announced when the import was accepted:
// - main content: the pages are appended after the existing top-level pages, and the revision
//   becomes the space's current revision;
// - a change request: the same on the change request's latest revision, which the change request
//   then points at (main is untouched).
// Nothing is written when anything fails.
import type { AppContext } from '../context.js';
import { DomainError, type ErrorKind } from '../core/errors.js';
import type { Logger } from '../log.js';
import type { ImportWebsitePayload } from '../queue/registry.js';
import { withTx, type Queryable } from '../db/pool.js';
import { newId } from '../util/ids.js';
import { lockSpace } from '../db/repos/spaces.js';
import { getRevision } from '../db/repos/revisions.js';
import * as crs from '../db/repos/change-requests.js';
import type { ChangeRequestRow } from '../db/repos/change-requests.js';
import { editChangeRequestContent, editMainContent, revisionSnapshot, SpaceLockedError, WriteTargetGoneError } from '../content/commit.js';
import type { Draft } from '../content/draft.js';
import { slugify } from '../content/markdown.js';
import { storeFileBytes } from '../content/files.js';
import { crawl, downloadImages, StartPageError } from './crawler.js';
import { htmlToMarkdown, rewriteContent, sameOriginImages } from './html.js';
import { pageKey } from './scope.js';
import { buildTree } from './tree.js';
import { decodeOrKeep } from '../util/uri.js';

/** Total time one import may spend fetching; what was fetched by then is imported. */
const IMPORT_TIME_BUDGET_MS = 10 * 60 * 1000;

/**
 * A final outcome: the operation fails with this message (no retry). A conflict (what the import
 * writes into changed state since it was accepted) unless said otherwise.
 */
export class ImportError extends DomainError {
  constructor(message: string, kind: ErrorKind = 'conflict') {
    super(kind, message);
    this.name = 'ImportError';
  }
}

interface ImportResult {
  revision: string;
  /** Pages imported. */
  importedResources: number;
  /** Pages discovered within the limits (imported, failed, or not reached in time). */
  totalResources: number;
}

interface ImportOptions {
  createdBy: string | null;
  progress: (fraction: number) => Promise<void>;
  /** Called once the space's main content changed (not for an import into a change request): derived data follows. */
  afterContentChange: (spaceId: string) => Promise<void>;
  /** Called once a change request's content changed (an import into it): its derived data follows. */
  afterChangeRequestChange?: (spaceId: string, changeRequestId: string) => Promise<void>;
  log?: Logger;
  /** Default IMPORT_TIME_BUDGET_MS. */
  timeBudgetMs?: number;
}

function checkEditable(cr: ChangeRequestRow | null): asserts cr is ChangeRequestRow {
  if (!cr) throw new ImportError('The change request no longer exists', 'not-found');
  if (cr.status === 'merged')
    throw new ImportError(`Change request #${cr.number} was merged before the import ran: its content can no longer change`);
  if (cr.status === 'archived') throw new ImportError(`Change request #${cr.number} was archived before the import ran`);
}

function pageSlug(url: URL, isStart: boolean, title: string): string {
  const last =
    url.pathname
      .replace(/\/+$/, '')
      .replace(/\/index\.html?$/i, '')
      .split('/')
      .pop() ?? '';
  const segment = decodeOrKeep(last.replace(/\.html?$/i, ''));
  return (!isStart && slugify(segment)) || slugify(title);
}

export async function importWebsite(app: AppContext, p: ImportWebsitePayload, o: ImportOptions): Promise<ImportResult> {
  // A retry after a commit whose success was not recorded: the import is done.
  const done = await getRevision(app.db, p.spaceId, p.revisionId);
  if (done) return alreadyImported(app, p.spaceId, done.id, done.parents[0]);
  if (p.changeRequestId) checkEditable(await crs.getChangeRequest(app.db, p.spaceId, p.changeRequestId));

  const deadline = Date.now() + (o.timeBudgetMs ?? IMPORT_TIME_BUDGET_MS);
  const limits = {
    timeoutMs: app.config.fetch.timeoutMs,
    maxBytes: app.config.fetch.maxBytes,
    allowPrivate: app.config.fetch.allowPrivate,
  };
  let result;
  try {
    result = await crawl(p.url, {
      maxPages: app.config.import.maxPages,
      deadline,
      fetch: limits,
      progress: (fetched, discovered) => o.progress(0.8 * (fetched / Math.max(discovered, 1))),
    });
  } catch (err) {
    if (err instanceof StartPageError) throw new ImportError(err.message, 'upstream');
    throw err;
  }
  const { scope, pages } = result;

  const imageUrls = new Map<string, URL>();
  for (const page of pages)
    for (const u of sameOriginImages(page.parsed, scope.origin)) if (!imageUrls.has(u.href)) imageUrls.set(u.href, u);
  const { images, skipped: skippedImages } = await downloadImages([...imageUrls.values()], {
    deadline,
    fetch: limits,
    progress: (done, total) => o.progress(0.8 + 0.1 * (done / Math.max(total, 1))),
  });

  // Ids first, so that every page can link to every other page and image.
  const pageIds = new Map<string, string>();
  for (const page of pages) pageIds.set(page.key, newId());
  for (const [alias, key] of result.aliases) if (pageIds.has(key)) pageIds.set(alias, pageIds.get(key)!);
  const fileIds = new Map<string, string>();
  for (const href of images.keys()) fileIds.set(href, newId());
  const markdown = new Map<string, string>();
  for (const page of pages) {
    rewriteContent(page.parsed, {
      page: (u) => {
        const id = pageIds.get(pageKey(u));
        return id ? `/pages/${id}` : null;
      },
      image: (u) => {
        const id = fileIds.get(u.href);
        return id ? `/files/${id}` : null;
      },
    });
    markdown.set(page.key, htmlToMarkdown(page.parsed.content.innerHTML));
  }
  const byKey = new Map(pages.map((pg) => [pg.key, pg]));
  const tree = buildTree(
    scope,
    result.startKey,
    pages.map((pg) => pg.key),
  );

  o.log?.info(
    {
      pages: pages.length,
      discovered: result.discovered,
      skipped: result.skipped.length,
      disallowed: result.disallowed.length,
      images: images.size,
      skippedImages: skippedImages.length,
      truncated: result.truncated,
    },
    'website crawled',
  );

  const fill = async (c: Queryable, draft: Draft) => {
    for (const [href, img] of images) {
      const stored = await storeFileBytes(app, c, p.spaceId, img.bytes, img.contentType);
      draft.insertFile({
        id: fileIds.get(href),
        name: img.name,
        contentType: img.contentType,
        size: stored.size,
        blobKey: stored.blobKey,
        sha256: stored.sha256,
        dimensions: stored.dimensions,
      });
    }
    for (const entry of tree) {
      const page = byKey.get(entry.key)!;
      draft.insertPage(entry.parent === null ? null : pageIds.get(entry.parent)!, {
        id: pageIds.get(entry.key),
        title: page.parsed.title,
        slug: pageSlug(page.url, entry.key === result.startKey, page.parsed.title),
        markdown: markdown.get(entry.key) ?? '',
      });
    }
  };

  const write = await withTx(app.db, async (c) => {
    const meta = { id: p.revisionId, createdBy: o.createdBy };
    if (p.changeRequestId) {
      // The space row first, as every writer that holds both locks it (and to know it still exists).
      if (!(await lockSpace(c, p.spaceId))) throw new ImportError('The space no longer exists', 'not-found');
      return editChangeRequestContent(c, p.spaceId, p.changeRequestId, (draft) => fill(c, draft), meta, { check: checkEditable });
    }
    return editMainContent(c, p.spaceId, (draft) => fill(c, draft), meta);
  }).catch((err) => {
    if (err instanceof SpaceLockedError)
      throw new ImportError('The space was locked before the import ran: its content cannot be edited while editMode is "locked"');
    if (err instanceof WriteTargetGoneError)
      throw new ImportError(err.target === 'space' ? 'The space no longer exists' : 'The change request no longer exists', 'not-found');
    throw err;
  });
  if (!p.changeRequestId) await o.afterContentChange(p.spaceId);
  else await o.afterChangeRequestChange?.(p.spaceId, p.changeRequestId);
  await o.progress(1);
  return { revision: write.revision.id, importedResources: pages.length, totalResources: result.discovered };
}

/** Result of an import whose revision already exists: the pages it added to its parent. */
async function alreadyImported(app: AppContext, spaceId: string, revisionId: string, parentId: string | undefined): Promise<ImportResult> {
  const { snapshot } = await revisionSnapshot(app.db, spaceId, revisionId);
  const before = parentId ? (await revisionSnapshot(app.db, spaceId, parentId)).snapshot : null;
  const added = snapshot.ordered.filter((tp) => !before?.byId.has(tp.node.id)).length;
  return { revision: revisionId, importedResources: added, totalResources: added };
}
