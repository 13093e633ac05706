// Git import and export of a space: the work of the git.import and git.export jobs.
import path from 'node:path/posix';
import type { AppContext } from '../context.js';
import type { GitJobPayload } from '../queue/registry.js';
import { withTx, type Queryable } from '../db/pool.js';
import { newId, derivedId } from '../util/ids.js';
import { getSpace } from '../db/repos/spaces.js';
import { getRevision, type RevisionRow } from '../db/repos/revisions.js';
import { getGitSyncState, recordGitSync, setSpaceGitSync } from '../db/repos/git-sync.js';
import type { Draft, PageFields } from '../content/draft.js';
import { editMainContent, revisionSnapshot, WriteTargetGoneError } from '../content/commit.js';
import { storeFilesBytes, type StoredBytes } from '../content/files.js';
import { canonicalJson, ObjectsAhead } from '../content/objects.js';
import { dumpYaml } from './format/yaml.js';
import { loadBodies, type TreePage } from '../content/snapshot.js';
import { gitSyncSummary } from './sync-state.js';
import { openCredentials } from './credentials.js';
import { guardedHttp } from './transport.js';
import { blobReader, type StoredFileRef } from './export-blobs.js';
import { withRepository, GitSyncError, isContent, type Repository, type RepoFileEntry } from './repo.js';
import {
  generateRepository,
  CONFIG_FILE,
  RepoFormatError,
  type ImportedPage,
  type ExportPage,
  type ExportFile,
  type GitBookConfig,
  type ParsedRepository,
} from './format.js';

export { GitSyncError };

/** At most this many warnings are kept on an import's result (a broken SUMMARY.md can have thousands). */
const MAX_WARNINGS = 200;
/** Files an import stores per batch, and the most bytes a batch holds (one file may exceed it alone). */
const FILE_BATCH = 64;
const FILE_BATCH_BYTES = 32 * 1024 * 1024;

function remoteFor(app: AppContext, p: GitJobPayload) {
  return {
    url: p.url,
    credentials: p.credentials ? openCredentials(p.credentials, app.secret) : undefined,
    http: guardedHttp({
      allowPrivate: app.config.fetch.allowPrivate,
      timeoutMs: app.config.git.timeoutMs,
      maxBytes: app.config.git.maxFetchBytes,
    }),
  };
}

/**
 * Files of a commit under the project directory, keyed relative to it (what the format layer reads).
 * Only text the format parses (markdown files and `.gitbook.yaml`) is read here; every other file
 * is an empty placeholder in `contents`, listed in `deferred`, and its bytes are read one file at a
 * time when it is stored (`fileBytes`), so an import never holds a repository's binaries at once.
 * Symlinks and submodules are left out of `contents` (they are not docs) but stay in `all`, so an
 * export writes them back. Oversize text fails an import (it would be stored); an export leaves
 * every oversize file unread (it stays in the tree by oid).
 */
async function projectFiles(app: AppContext, repo: Repository, commit: string, projectDir: string, opts: { skipOversize?: boolean } = {}) {
  const all = await repo.listFiles(commit);
  const prefix = projectDir ? `${projectDir}/` : '';
  const entries = new Map<string, RepoFileEntry>();
  const contents = new Map<string, Buffer>();
  const deferred = new Set<string>();
  const empty = Buffer.alloc(0);
  const text: [string, string, string][] = [];
  for (const [p, e] of all) {
    if (!p.startsWith(prefix) || !isContent(e)) continue;
    const rel = p.slice(prefix.length);
    entries.set(rel, e);
    if (!/\.(md|markdown)$/i.test(rel) && !/(^|\/)\.gitbook\.yaml$/.test(rel)) {
      contents.set(rel, empty);
      deferred.add(rel);
      continue;
    }
    contents.set(rel, empty); // read below, in this order
    text.push([p, rel, e.oid]);
  }
  // Read in the order they are stored (a sequential scan of the pack, delta bases at hand).
  const bytesOf = new Map<string, Buffer>();
  for (const oid of await repo.storageOrder(text.map(([, , oid]) => oid))) {
    if (!bytesOf.has(oid)) bytesOf.set(oid, await repo.readBlob(oid));
  }
  for (const [p, rel, oid] of text) {
    const bytes = bytesOf.get(oid)!;
    if (bytes.length > app.config.git.maxFileBytes) {
      if (opts.skipOversize) {
        entries.delete(rel);
        contents.delete(rel);
        continue; // kept in the tree by its oid
      }
      throw new GitSyncError(`${p} is ${bytes.length} bytes, over the limit of ${app.config.git.maxFileBytes} bytes`);
    }
    contents.set(rel, bytes);
  }
  return { all, entries, contents, deferred };
}

/** The bytes of a file the import stores: read now if `projectFiles` deferred it (size checked). */
async function fileBytes(app: AppContext, repo: Repository, files: Awaited<ReturnType<typeof projectFiles>>, rel: string, content: Buffer) {
  if (!files.deferred.has(rel)) return content;
  const bytes = await repo.readBlob(files.entries.get(rel)!.oid);
  if (bytes.length > app.config.git.maxFileBytes) {
    throw new GitSyncError(`${rel} is ${bytes.length} bytes, over the limit of ${app.config.git.maxFileBytes} bytes`);
  }
  return bytes;
}

/** The repository's page tree, read on a Markdown pool thread (not this event loop), within git's time limit. */
async function readRepository(app: AppContext, files: Map<string, Buffer>): Promise<ParsedRepository> {
  try {
    return await app.markdown.repository(files, app.config.git.timeoutMs);
  } catch (err) {
    if (err instanceof RepoFormatError) throw err;
    throw new GitSyncError(`Could not read the repository: ${(err as Error).message}`);
  }
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

/**
 * Record what the space last synced with. `commit` null (a standalone import, which does not
 * change the space's content) keeps the previous commit, so the next export builds on what the
 * space's content really came from.
 */
async function recordSync(db: Queryable, p: GitJobPayload, commit: string | null) {
  await recordGitSync(db, {
    spaceId: p.spaceId,
    url: p.url,
    ref: p.ref,
    commit,
    timestamp: p.timestamp ?? null,
    provider: p.gitInfo?.provider ?? null,
    treeUrl: p.repoTreeURL ?? p.gitInfo?.url ?? null,
  });
  const summary = gitSyncSummary(p.spaceId, await getGitSyncState(db, p.spaceId));
  if (summary) await setSpaceGitSync(db, p.spaceId, summary);
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
  return withRepository(app.config.git.cacheDir, p.spaceId, remoteFor(app, p), p.repoCacheID, async (repo) => {
    const commit = await repo.fetch(p.ref);
    progress(0.3);
    // Importing the commit the space's content already is (unchanged since that import) creates no revision.
    if (!p.standalone) {
      const space = await getSpace(app.db, p.spaceId);
      const current = space?.revision_id ? await getRevision(app.db, p.spaceId, space.revision_id) : null;
      const g = current?.git;
      if (current && g && g.oid === commit && g.ref === p.ref && g.url === (p.repoCommitURL ?? p.url)) {
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
}

/** The deepest folder holding every path given ('' when they share none). */
function sharedFolder(paths: Array<string | undefined>): string {
  let shared: string[] | null = null;
  for (const p of paths) {
    if (!p) continue;
    const dirs = p.split('/').slice(0, -1);
    if (!shared) shared = dirs;
    else {
      let i = 0;
      while (i < shared.length && i < dirs.length && shared[i] === dirs[i]) i++;
      shared = shared.slice(0, i);
    }
    if (!shared.length) return '';
  }
  return shared?.join('/') ?? '';
}

/** Semantic identity of an imported page, to tell an unchanged page from an edited one. */
function pageKey(x: {
  type: string;
  title: string;
  description?: string;
  icon?: string;
  emoji?: string;
  hidden?: boolean;
  layout?: Record<string, unknown>;
  markdown: string;
}) {
  // Canonical JSON: stored objects come back with their keys sorted, a parsed file in its own order.
  return canonicalJson([
    x.type,
    x.title,
    x.description ?? '',
    x.icon ?? '',
    x.emoji ?? '',
    !!x.hidden,
    x.layout ?? null,
    x.markdown.replace(/\s+$/, ''),
  ]);
}

interface StructureEntry {
  type: string;
  title: string;
  path?: string;
  gitPath?: string;
  linkTitle?: string;
  href?: string;
  computed?: unknown;
  children: unknown[];
}

/** What SUMMARY.md says of a tree: when it is the same, the existing SUMMARY.md is kept byte for byte. */
function structure(pages: StructureEntry[], depth = 0): string[] {
  return pages.flatMap((p) => [
    canonicalJson([depth, p.type, p.title, p.path || p.gitPath || '', p.linkTitle ?? '', p.href ?? '', p.computed ?? null]),
    ...structure(p.children as StructureEntry[], depth + 1),
  ]);
}

/**
 * Export the space's current revision as a commit on the branch and push it. The commit's parent
 * is the commit the space last synced with (so a branch that moved on since is a non-fast-forward,
 * refused unless `force`), or the branch head on a first export. Files the format does not manage
 * are kept; pages and SUMMARY.md that did not change keep their exact bytes, so exporting an
 * unchanged import produces no diff (and no commit).
 */
export async function exportRepository(
  app: AppContext,
  p: GitJobPayload & { commitMessage: string },
  progress: (f: number) => Promise<void>,
) {
  const projectDir = p.repoProjectDirectory ?? '';
  const space = await getSpace(app.db, p.spaceId);
  if (!space) throw new GitSyncError('The space no longer exists');
  const { snapshot } = await revisionSnapshot(app.db, p.spaceId, space.revision_id);
  const bodies = await loadBodies(
    app.db,
    p.spaceId,
    snapshot.ordered.map((t) => t.node),
  );
  const state = await getGitSyncState(app.db, p.spaceId);

  return withRepository(app.config.git.cacheDir, p.spaceId, remoteFor(app, p), p.repoCacheID, async (repo) => {
    const head = await repo.remoteHead(p.ref);
    if (head) await repo.fetch(p.ref);
    const synced =
      state && state.url === p.url && state.ref === p.ref && state.last_commit && (await repo.hasObject(state.last_commit))
        ? state.last_commit
        : null;
    const parent = p.force ? head : (synced ?? head);
    await progress(0.3);

    const parentFiles = parent ? await projectFiles(app, repo, parent, projectDir, { skipOversize: true }) : null;
    let parsedParent: ParsedRepository | null;
    try {
      parsedParent = parentFiles && parentFiles.contents.size ? await readRepository(app, parentFiles.contents) : null;
    } catch (err) {
      if (!(err instanceof RepoFormatError)) throw err;
      parsedParent = null; // not a docs repository (yet): generated from scratch
    }
    const config = parsedParent?.config;
    const docsPrefix =
      (projectDir ? `${projectDir}/` : '') +
      (config?.root && config.root !== './' ? `${config.root.replace(/^\.\//, '').replace(/\/$/, '')}/` : '');
    // A space exported to a repository it did not come from (no docs there yet): its paths keep
    // their layout relative to the docs root they were imported from (the folder all of them share),
    // not that root's place in the other repository.
    const origin =
      !synced && !parsedParent
        ? sharedFolder([...snapshot.ordered.map((t) => t.node.git?.path), ...snapshot.files.map((f) => f.git?.path)])
        : '';
    const toDocsPath = (repoPathValue?: string) => {
      const rel =
        repoPathValue && origin
          ? repoPathValue.startsWith(`${origin}/`)
            ? repoPathValue.slice(origin.length + 1)
            : undefined
          : repoPathValue;
      return rel && rel.startsWith(docsPrefix) ? rel.slice(docsPrefix.length) : undefined;
    };

    const parentByPath = new Map<string, ImportedPage>();
    const indexParent = (list: ImportedPage[]) => list.forEach((x) => (x.path && parentByPath.set(x.path, x), indexParent(x.children)));
    indexParent(parsedParent?.pages ?? []);
    const toExport = (tp: TreePage): ExportPage => ({
      id: tp.node.id,
      type: tp.node.type,
      title: tp.node.title,
      ...(tp.node.linkTitle ? { linkTitle: tp.node.linkTitle } : {}),
      ...(tp.node.type === 'link' ? { href: tp.node.href ?? (typeof tp.node.target?.url === 'string' ? tp.node.target.url : '') } : {}),
      ...(tp.node.type === 'computed' && tp.node.computed ? { computed: tp.node.computed } : {}),
      // Front matter keys the format does not manage (GitBook's coverY...) stay in the file.
      ...(() => {
        const before = parentByPath.get(toDocsPath(tp.node.git?.path) ?? '');
        return before?.extraFrontMatter ? { extraFrontMatter: before.extraFrontMatter, frontMatterOrder: before.frontMatterOrder } : {};
      })(),
      slug: tp.node.slug,
      description: tp.node.description,
      icon: tp.node.icon,
      emoji: tp.node.emoji,
      hidden: tp.node.hidden,
      layout: tp.node.layout,
      markdown: bodies.get(tp.node.id) ?? '',
      gitPath: toDocsPath(tp.node.git?.path),
      children: tp.children.map(toExport),
    });
    const pages = snapshot.pages.map(toExport);
    // Files are placed by reference; their bytes are read one at a time when the tree is written.
    const files: ExportFile<StoredFileRef>[] = snapshot.files.map((f) => ({
      name: f.name,
      gitPath: toDocsPath(f.git?.path),
      content: { blobKey: f.blobKey, name: f.name, size: f.size },
    }));
    const generated = generateRepository(pages, files, config);
    // A repository without docs yet gets a .gitbook.yaml when the space has redirects to keep (an
    // existing one is the user's and is never rewritten).
    const redirects = snapshot.root.redirects ?? {};
    const configPath = `${projectDir ? `${projectDir}/` : ''}${CONFIG_FILE}`;
    if (!parsedParent && Object.keys(redirects).length && !parentFiles?.all.has(configPath)) {
      generated.set(CONFIG_FILE, Buffer.from(`root: ./\n${dumpYaml({ redirects })}`, 'utf8'));
    }

    // Keep the exact bytes of what did not change since the parent commit.
    if (parsedParent && parentFiles) {
      const parentPages = new Map<string, ImportedPage>();
      const index = (list: ImportedPage[]) => list.forEach((x) => (x.path && parentPages.set(x.path, x), index(x.children)));
      index(parsedParent.pages);
      const current = new Map<string, ExportPage>();
      const indexExport = (list: ExportPage[]) => list.forEach((x) => (x.gitPath && current.set(x.gitPath, x), indexExport(x.children)));
      indexExport(pages);
      const rootDir = (config?.root ?? './').replace(/^\.\//, '').replace(/\/$/, '');
      for (const [docsPath, before] of parentPages) {
        const now = current.get(docsPath);
        const rel = rootDir ? `${rootDir}/${docsPath}` : docsPath;
        if (now && generated.has(rel) && pageKey(before) === pageKey({ ...now, markdown: now.markdown })) {
          const kept = parentFiles.contents.get(rel);
          // A SUMMARY entry whose file did not exist, still empty: it stays without a file.
          if (kept) generated.set(rel, kept);
          else if (before.missing) generated.delete(rel);
        }
      }
      const summaryRel = (rootDir ? `${rootDir}/` : '') + (config?.summary ?? 'SUMMARY.md');
      if (
        generated.has(summaryRel) &&
        parentFiles.contents.has(summaryRel) &&
        structure(parsedParent.pages).join('\n') === structure(pages).join('\n')
      ) {
        generated.set(summaryRel, parentFiles.contents.get(summaryRel)!);
      }
    }

    // The new tree: the parent's entries (files, symlinks, submodules, everything outside the docs
    // root), minus the page files and SUMMARY.md it managed, plus what we generate.
    const tree = new Map<string, RepoFileEntry>(parentFiles?.all ?? []);
    const prefix = projectDir ? `${projectDir}/` : '';
    if (parsedParent && parentFiles) {
      const managed = new Set<string>();
      const rootDir = (config?.root ?? './').replace(/^\.\//, '').replace(/\/$/, '');
      const rel = (x: string) => (rootDir ? `${rootDir}/${x}` : x);
      const walk = (list: ImportedPage[]) => list.forEach((x) => (x.path && managed.add(rel(x.path)), walk(x.children)));
      walk(parsedParent.pages);
      // Files (assets) are never removed: one the space no longer has may still be used by
      // something outside the docs (a README, a site), and unreferenced assets are the user's.
      managed.add(rel(config?.summary ?? 'SUMMARY.md'));
      for (const m of managed) tree.delete(prefix + m);
    }
    // The blobs and trees go into one new pack, the blobs in the tree's order (blobReader).
    const blobs = [...generated].map(([rel, content]) => {
      const mode = tree.get(prefix + rel)?.mode;
      const entry = { oid: '', mode: mode === '100755' ? mode : '100644' };
      tree.set(prefix + rel, entry);
      return { entry, content };
    });
    const treeOid = await repo.writeFilesAndTree(
      tree,
      blobs.map((b) => b.entry),
      blobReader(
        app,
        blobs.map((b) => b.content),
      ),
    );
    await progress(0.6);
    if (parent && (await repo.commitInfo(parent)).tree === treeOid) {
      await recordSync(app.db, p, parent);
      return { commit: parent, unchanged: true };
    }
    // The branch already holds exactly this content on top of what the space synced with (an
    // earlier run of this operation pushed, then died before recording it): nothing to push again.
    if (head && parent && head !== parent) {
      const h = await repo.commitInfo(head);
      if (h.tree === treeOid && h.parents.includes(parent)) {
        await recordSync(app.db, p, head);
        return { commit: head, unchanged: false };
      }
    }
    const commit = await repo.commit({
      tree: treeOid,
      parents: parent ? [parent] : [],
      message: p.commitMessage,
      author: { name: 'Docs platform', email: 'docs-platform@localhost' },
    });
    await repo.push(commit, p.ref, !!p.force);
    await recordSync(app.db, p, commit);
    return { commit, unchanged: false };
  });
}
