// What git import and export share: the remote of a job, the project's files at a commit, the
// page tree read on a Markdown pool thread, the space's sync record.
import type { AppContext } from '../context.js';
import type { GitJobPayload } from '../queue/registry.js';
import type { Queryable } from '../db/pool.js';
import { getGitSyncState, recordGitSync, setSpaceGitSync, withGitCacheLock } from '../db/repos/git-sync.js';
import { getSpace } from '../db/repos/spaces.js';
import { gitSyncSummary } from './sync-state.js';
import { openCredentials } from './credentials.js';
import { guardedHttp } from './transport.js';
import { cacheKey, withRepository, GitSyncError, isContent, type Repository, type RepoFileEntry } from './repo.js';
import { RepoFormatError, type ParsedRepository } from './format.js';

export function remoteFor(app: AppContext, p: GitJobPayload) {
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
 * Run `fn` with the cached bare repository of the job's remote: one per repository (normalized
 * URL), shared by every space synced from it (a monorepo's project directories fetch once per
 * push), or per `repoCacheID` within the space's organization; one run at a time per cache across
 * worker processes (withGitCacheLock). Fetches and pushes use this job's own credentials.
 */
export async function withJobRepository<T>(app: AppContext, p: GitJobPayload, fn: (repo: Repository) => Promise<T>): Promise<T> {
  const orgId = (await getSpace(app.db, p.spaceId))?.organization_id ?? `space:${p.spaceId}`;
  return withRepository(
    app.config.git.cacheDir,
    cacheKey(p.url, p.repoCacheID, orgId),
    remoteFor(app, p),
    (key, run) => withGitCacheLock(app.db, key, run),
    fn,
  );
}

/** Whether two commits hold the same files under `dir` (false when the cache lacks either). */
export async function sameFolder(repo: Repository, before: string, after: string, dir: string): Promise<boolean> {
  for (const oid of [before, after]) if (!/^[0-9a-f]{40}$/.test(oid) || !(await repo.hasObject(oid))) return false;
  const a = await repo.subtree(before, dir);
  return a !== null && a === (await repo.subtree(after, dir));
}

/**
 * Whether the job's project directory differs between commit `from` and commit `to` of its remote
 * (a monorepo's branch that moved only in other folders did not move for this space). `to` is
 * fetched when the cache lacks it (with the job's credentials); true when it cannot tell.
 */
export async function folderChanged(app: AppContext, p: GitJobPayload, from: string, to: string): Promise<boolean> {
  if (from === to) return false;
  return withJobRepository(app, p, async (repo) => {
    if (!(await repo.hasObject(to))) await repo.fetch(p.ref);
    return !(await sameFolder(repo, from, to, p.repoProjectDirectory ?? ''));
  });
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
export async function projectFiles(
  app: AppContext,
  repo: Repository,
  commit: string,
  projectDir: string,
  opts: { skipOversize?: boolean } = {},
) {
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

/** The repository's page tree, read on a Markdown pool thread (not this event loop), within git's time limit. */
export async function readRepository(app: AppContext, files: Map<string, Buffer>): Promise<ParsedRepository> {
  try {
    return await app.markdown.repository(files, app.config.git.timeoutMs);
  } catch (err) {
    if (err instanceof RepoFormatError) throw err;
    throw new GitSyncError(`Could not read the repository: ${(err as Error).message}`);
  }
}

/**
 * Record what the space last synced with. `commit` null (a standalone import, which does not
 * change the space's content) keeps the previous commit, so the next export builds on what the
 * space's content really came from.
 */
export async function recordSync(db: Queryable, p: GitJobPayload, commit: string | null) {
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
