// Git import of a space: the work of the git.import job (fetch, read the docs-as-code tree, one
// new revision).
import path from 'node:path/posix';
import type { AppContext } from '../context.js';
import type { GitJobPayload } from '../queue/registry.js';
import { withTx, type Queryable } from '../db/pool.js';
import { newId, derivedId } from '../util/ids.js';
import { getSpace } from '../db/repos/spaces.js';
import { getRevision, type RevisionRow } from '../db/repos/revisions.js';
import type { Draft, PageFields } from '../content/draft.js';
import { editMainContent, WriteTargetGoneError } from '../content/commit.js';
import { storeFilesBytes, type StoredBytes } from '../content/files.js';
import { ObjectsAhead } from '../content/objects.js';
import type { TreePage } from '../content/snapshot.js';
import { GitSyncError, type Repository } from './repo.js';
import { RepoFormatError, type ImportedPage, type GitBookConfig, type ParsedRepository } from './format.js';
import { projectFiles, readRepository, recordSync, sameFolder, withJobRepository } from './sync.js';

/** At most this many warnings are kept on an import's result (a broken SUMMARY.md can have thousands). */
const MAX_WARNINGS = 200;

/** Files an import stores per batch, and the most bytes a batch holds (one file may exceed it alone). */
const FILE_BATCH = 64;
const FILE_BATCH_BYTES = 32 * 1024 * 1024;

/** The bytes of a file the import stores: read now if `projectFiles` deferred it (size checked). */
async function fileBytes(app: AppContext, repo: Repository, files: Awaited<ReturnType<typeof projectFiles>>, rel: string, content: Buffer) {
  if (!files.deferred.has(rel)) return content;
  const bytes = await repo.readBlob(files.entries.get(rel)!.oid);
  if (bytes.length > app.config.git.maxFileBytes) {
    throw new GitSyncError(`${rel} is ${bytes.length} bytes, over the limit of ${app.config.git.maxFileBytes} bytes`);
  }
  return bytes;
}

async function parseOrFail(app: AppContext, files: Map<string, Buffer>) {
  try {
    return await readRepository(app, files);
  } catch (err) {
    if (err instanceof RepoFormatError) throw new GitSyncError(`The repository is not a valid docs repository: ${err.message}`);
    throw err;
  }
}

/** The Markdown of every document page of an imported tree. */
function* documentMarkdowns(pages: ImportedPage[]): Generator<string> {
  for (const ip of pages) {
    if (ip.type === 'document' && ip.markdown) yield ip.markdown;
    yield* documentMarkdowns(ip.children);
  }
}

/** Path of a page file relative to the repository root, from its path relative to the docs root. */
function repoPath(projectDir: string, config: GitBookConfig, docsPath: string) {
  return path.normalize(path.join(projectDir || '.', config.root || '.', docsPath)).replace(/^\.\//, '');
}

interface ImportRun {
  /** The operation doing the import: the revision it creates has an id derived from it. */
  operationId: string;
  progress: (f: number) => Promise<void>;
  /**
   * Called inside the transaction that commits the revision, before the commit: throws if this run
   * must not commit (another run of the same operation took it over).
   */
  fence?: (c: Queryable) => Promise<void>;
  /** Called once the space's content changed (not for a standalone import): derived data follows. */
  afterContentChange: (spaceId: string) => Promise<void>;
}

/** Id of the revision an import operation creates: a second run of the operation finds it. */
function importRevisionId(operationId: string): string {
  return derivedId('git.import', operationId);
}

interface ImportResult {
  revision: string;
  commit: string;
  standalone: boolean;
  operation: string;
  /** What the import could not use as written (SUMMARY entries, front matter), each naming the file and line. */
  warnings?: string[];
  /** The space's content already was this commit: no revision was created. */
  unchanged?: boolean;
}

function importResult(p: GitJobPayload, revision: RevisionRow, operationId: string): ImportResult {
  return { revision: revision.id, commit: String(revision.git?.oid ?? ''), standalone: !!p.standalone, operation: operationId };
}

/**
 * The result of an import operation whose revision already exists (a second run after the first
 * committed but could not record its success, or died before): nothing is imported again. The
 * search index is brought up to date, in case the first run died before doing it.
 */
export async function completedImport(
  app: AppContext,
  p: GitJobPayload,
  run: Pick<ImportRun, 'operationId' | 'afterContentChange'>,
): Promise<ImportResult | null> {
  const revision = await getRevision(app.db, p.spaceId, importRevisionId(run.operationId));
  if (!revision) return null;
  if (!p.standalone && (await getSpace(app.db, p.spaceId))) await run.afterContentChange(p.spaceId);
  return importResult(p, revision, run.operationId);
}

/**
 * Import a branch: fetch it into the local cache, read the docs-as-code tree under the project
 * directory, and build a revision from it. Pages keep their ids across imports (matched by file
 * path), files are stored content-addressed. Unless `standalone`, the revision becomes the space's
 * content. Nothing changes when anything fails. One revision per operation: its id is derived from
 * the operation, so a second run of the same operation changes nothing (see `completedImport`).
 */
export async function importRepository(app: AppContext, p: GitJobPayload, run: ImportRun): Promise<ImportResult> {
  const { operationId } = run;
  const projectDir = p.repoProjectDirectory ?? '';
  const revisionId = importRevisionId(operationId);
  // Progress is written while the import goes on (nothing here needs it done; a write that waits
  // behind the bodies stored ahead took 10-25 ms); every report is done before the import returns.
  const reports: Promise<void>[] = [];
  const progress = (fraction: number) => {
    const report = run.progress(fraction);
    report.catch(() => {}); // awaited below; an import that fails first does not wait for it
    reports.push(report);
  };
  const reported = async <T>(result: T): Promise<T> => (await Promise.all(reports), result);
  return withJobRepository(app, p, async (repo) => {
    const commit = await repo.fetch(p.ref);
    progress(0.3);
    // Importing the commit the space's content already is (unchanged since that import) creates no
    // revision; nor does a commit that changed nothing under the project directory (in a monorepo,
    // a push to another space's folder): the import reads nothing else.
    if (!p.standalone) {
      const space = await getSpace(app.db, p.spaceId);
      const current = space?.revision_id ? await getRevision(app.db, p.spaceId, space.revision_id) : null;
      const g = current?.git;
      if (
        current &&
        g &&
        g.ref === p.ref &&
        g.url === (p.repoCommitURL ?? p.url) &&
        (g.oid === commit || (await sameFolder(repo, String(g.oid), commit, projectDir)))
      ) {
        await recordSync(app.db, p, commit);
        return reported({ revision: current.id, commit, standalone: false, operation: operationId, unchanged: true });
      }
    }
    const files = await projectFiles(app, repo, commit, projectDir);
    const { contents } = files;
    if (projectDir && contents.size === 0) throw new GitSyncError(`The directory "${projectDir}" does not exist in ${p.ref}`);
    const parsed = await parseOrFail(app, contents);
    // The pages' bodies, most of the revision's bytes, are stored on a connection of their own
    // while the transaction below builds the tree; then, on it too, the pages' own objects while
    // the transaction stores the files. The revision commits after them (objects.ts ObjectsAhead).
    const ahead = new ObjectsAhead(app.db, p.spaceId);
    try {
      const bodies = ahead.bodies(documentMarkdowns(parsed.pages));
      bodies.catch(() => {}); // awaited below; an import that fails first does not wait for it
      const message = (await repo.commitInfo(commit)).message.trim();
      progress(0.5);

      const result = await withTx(app.db, async (c) => {
        // A git import applies to a locked space too: the repository is the source of truth.
        const write = await editMainContent(
          c,
          p.spaceId,
          async (draft) => {
            await run.fence?.(c);
            // Another run of this operation committed while this one was fetching: nothing to do.
            const done = await getRevision(c, p.spaceId, revisionId);
            if (done) return done;
            await importIntoDraft(app, c, draft, { p, projectDir, repo, files, parsed, bodies, ahead });
            return null;
          },
          {
            id: revisionId,
            git: { oid: commit, message, url: p.repoCommitURL ?? p.url, ref: p.ref, createdByService: true },
            createdBy: null,
          },
          { allowLocked: true, makeCurrent: !p.standalone },
        ).catch((err) => {
          throw err instanceof WriteTargetGoneError ? new GitSyncError('The space no longer exists') : err;
        });
        const done = write.result;
        if (done) return { revision: done.id, commit: String(done.git?.oid ?? commit) };
        // In the same transaction: a retry after a crash never finds a revision without its sync record.
        await recordSync(c, p, p.standalone ? null : commit);
        return { revision: write.revision.id, commit };
      });
      if (!p.standalone) await run.afterContentChange(p.spaceId);
      const warnings = parsed.warnings.slice(0, MAX_WARNINGS);
      return reported({
        revision: result.revision,
        commit: result.commit,
        standalone: !!p.standalone,
        operation: operationId,
        ...(warnings.length ? { warnings } : {}),
      });
    } finally {
      await ahead.release();
    }
  });
}

/** What an import's transaction puts into its draft (importRepository). */
interface DraftImport {
  p: GitJobPayload;
  projectDir: string;
  repo: Repository;
  files: Awaited<ReturnType<typeof projectFiles>>;
  parsed: ParsedRepository;
  /** The bodies' objects, stored ahead (their hashes by markdown). */
  bodies: Promise<Map<string, string>>;
  ahead: ObjectsAhead;
}

/**
 * Replace the draft's content with the repository's tree (pages and files keep their ids by path),
 * storing the files' bytes in `c`'s transaction and the pages' objects ahead meanwhile.
 */
async function importIntoDraft(
  app: AppContext,
  c: Queryable,
  draft: Draft,
  { p, projectDir, repo, files, parsed, bodies, ahead }: DraftImport,
) {
  const { entries } = files;
  const current = draft.base!;
  const byPath = new Map<string, TreePage>();
  const groups = new Map<string, TreePage>();
  for (const tp of current.ordered) {
    if (tp.node.git?.path) byPath.set(tp.node.git.path, tp);
    else groups.set(`${tp.node.type}:${tp.node.title}`, tp);
  }
  // The repository's tree replaces the whole content (pages and files keep their ids by path).
  draft.reset(null);
  const add = (parentId: string | null, ip: ImportedPage) => {
    const gitPath = ip.type === 'document' && ip.path ? repoPath(projectDir, parsed.config, ip.path) : undefined;
    const existing = gitPath ? byPath.get(gitPath) : groups.get(`${ip.type}:${ip.title}`);
    const docsEntry = ip.path ? entries.get(path.join(parsed.config.root || '.', ip.path).replace(/^\.\//, '')) : undefined;
    const fields: PageFields & { id: string; title: string } = {
      id: existing && !draft.has(existing.node.id) ? existing.node.id : newId(),
      type: ip.type,
      title: ip.title,
      description: ip.description ?? null,
      icon: ip.icon ?? null,
      emoji: ip.emoji ?? null,
      hidden: ip.hidden ?? false,
      layout: ip.layout ?? null,
      markdown: ip.type === 'document' ? ip.markdown : '',
      git: gitPath ? { oid: docsEntry?.oid ?? '', path: gitPath } : null,
      linkTitle: ip.linkTitle ?? null,
    };
    if (ip.type === 'link') {
      fields.href = ip.href ?? '';
      fields.target = { kind: 'url', url: ip.href ?? '' };
    }
    if (ip.type === 'computed' && ip.computed) fields.computed = ip.computed;
    if (ip.cover && 'url' in ip.cover) fields.cover = { ref: { kind: 'url', url: ip.cover.url } };
    const id = draft.insertPage(parentId, fields);
    if (ip.cover && 'path' in ip.cover) covers.push([id, ip.cover.path]);
    for (const child of ip.children) add(id, child);
  };
  // Pages whose cover is a file of the repository: set once the files have their ids.
  const covers: [string, string][] = [];
  for (const ip of parsed.pages) add(null, ip);
  draft.setRedirects(parsed.config.redirects);
  // The bodies started before the transaction: stored by now, as a rule.
  draft.knowStoredBodies(await bodies);
  const pagesStored = ahead.objects(draft.pageObjectsNow());
  pagesStored.catch(() => {}); // awaited below; an import that fails first does not wait for it

  const filesByPath = new Map(current.files.filter((f) => f.git?.path).map((f) => [f.git!.path, f]));
  const fileIds = new Map<string, string>();
  // Bytes are stored in batches (one set of statements per batch, BlobStore calls in
  // parallel), at most FILE_BATCH_BYTES of them in memory; files enter the revision in order.
  const stored: StoredBytes[] = [];
  let batch: { bytes: Buffer; contentType: string }[] = [];
  let batchBytes = 0;
  const flush = async () => {
    stored.push(...(await storeFilesBytes(app, c, p.spaceId, batch)));
    batch = [];
    batchBytes = 0;
  };
  for (const f of parsed.files) {
    const rel = path.join(parsed.config.root || '.', f.path).replace(/^\.\//, '');
    const bytes = await fileBytes(app, repo, files, rel, f.content);
    if (batch.length && (batch.length >= FILE_BATCH || batchBytes + bytes.length > FILE_BATCH_BYTES)) await flush();
    batch.push({ bytes, contentType: f.contentType });
    batchBytes += bytes.length;
  }
  await flush();
  for (const [i, f] of parsed.files.entries()) {
    const gitPath = repoPath(projectDir, parsed.config, f.path);
    const entry = entries.get(path.join(parsed.config.root || '.', f.path).replace(/^\.\//, ''));
    const fileId = draft.insertFile({
      id: filesByPath.get(gitPath)?.id,
      name: f.name,
      contentType: f.contentType,
      size: stored[i].size,
      blobKey: stored[i].blobKey,
      sha256: stored[i].sha256,
      dimensions: stored[i].dimensions,
      git: { oid: entry?.oid ?? '', path: gitPath },
    });
    fileIds.set(f.path, fileId);
  }
  for (const [pageId, coverPath] of covers) {
    const file = fileIds.get(coverPath);
    if (file) draft.updatePage(pageId, { cover: { ref: { kind: 'file', file } } });
  }
  await pagesStored;
  // Everything ahead is in: the connection goes back before the transaction commits.
  await ahead.release();
}
