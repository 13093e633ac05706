// Git Sync of a whole site (a `git_syncs` row of kind 'site'): the body of its `git.sync` runs.
// A run holds the site's git lock, reads the branch head (ls-remote), and compares both sides with
// what they agreed on at the last run:
// - docs.yaml changed on the branch (or a first sync): it is parsed and applied to the site
//   (applySiteConfig). A directory no site space shows yet gets the organization's space already
//   synced from it (same repository, branch and folder), or a new space with a space sync of its own
//   (the site sync's direction, webhooks only: the site run asks for the space runs); a bad
//   docs.yaml fails the run (status `error`, lastError naming the file and line) and applies nothing;
// - the site's structure changed through the API and docs.yaml did not move: the docs.yaml the
//   structure gives (siteConfigOf) is committed on the head, that file alone, and pushed; a
//   structure that gives the same file writes no commit. Both moved: the repository wins.
// - `direction: export`: the file is never applied; the first run writes the docs.yaml the site
//   gives (on an empty repository or a missing branch, as the branch's first commit), and each
//   directory it names gets a space sync of its own (linked, one-way too) whose run exports the
//   space into it. Import and bidirectional syncs of a branch without docs.yaml fail, saying so.
// After a run that saw the branch move, the runs of the site's spaces synced from that branch are
// asked for (they import their folders); a space import asks its language variants to run again.
import { createHash } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { DomainError, invalid } from '../../core/errors.js';
import { JobSkipped, LeaseLost } from '../../queue/errors.js';
import { withGitCacheLock, withGitSyncLock } from '../../db/repos/git-sync.js';
import {
  findSpaceSyncOfRemote,
  getGitSync,
  getGitSyncOfSpace,
  insertSpaceGitSync,
  recordSiteSyncSuccess,
  recordSyncFailure,
  setGitSyncStatus,
  updateGitSyncSettings,
  type GitSyncRow,
  type GitSyncSettings,
} from '../../db/repos/git-syncs.js';
import { listAllSiteSpaces } from '../../db/repos/site-structure.js';
import { getSite } from '../../db/repos/sites.js';
import { newId } from '../../util/ids.js';
import { cacheKey, GitSyncError, withRepository, type RepoFileEntry, type Repository } from '../../git/repo.js';
import { remoteFor } from '../../git/sync.js';
import { remoteBranchHead } from '../../git/remote-head.js';
import { RepoFormatError } from '../../git/format/errors.js';
import {
  findDocsYaml,
  parseDocsYaml,
  resolveDirectory,
  spacesOf,
  writeDocsYaml,
  type DocsYamlConfig,
  type DocsYamlSpace,
} from '../../git/format/docs-yaml.js';
import type { GitJobPayload } from '../../queue/registry.js';
import type { OperationRun } from '../operation-run.js';
import { createSpace } from '../spaces.js';
import { applySiteConfig, siteConfigOf, type AppliedSiteSpace } from './site-config.js';
import { refreshLanguageVariants } from './site-variants.js';
import { requestRun } from './request-run.js';
import { newWebhook } from './settings.js';
import { branchOf } from './conflicts.js';

export interface SiteRunResult {
  action: 'none' | 'import' | 'export';
  /** The branch head the run read (null: the branch did not exist; a first export made it). */
  head: string | null;
  commit?: string;
  /** The site's structure changed (import). */
  changed?: boolean;
  unchanged?: boolean;
  warnings?: string[];
  /** The space runs asked for. */
  spaceRuns?: string[];
}

/** Who the commits writing docs.yaml back are authored by. */
const AUTHOR = { name: 'Docs platform', email: 'docs-platform@localhost' };

const hashOf = (text: string) => createHash('sha256').update(text).digest('hex');

/** The body of a `git.sync` job of a site sync. */
export async function runSiteSync(app: AppContext, first: GitSyncRow, run: OperationRun): Promise<SiteRunResult> {
  const siteId = first.site_id!;
  if (!(await getSite(app.db, siteId))) throw new JobSkipped('The site was deleted');
  return withGitSyncLock(app.db, `site:${siteId}`, async () => {
    const s = await getGitSync(app.db, first.id);
    if (!s) throw new JobSkipped('Git Sync was removed');
    try {
      return await siteSyncOnce(app, s, run);
    } catch (err) {
      if (err instanceof JobSkipped || err instanceof LeaseLost) throw err;
      const failure = err instanceof RepoFormatError ? new GitSyncError(err.message) : err instanceof DomainError ? err : null;
      const message = failure ? failure.message : `The sync failed: ${(err as Error).message ?? String(err)}`;
      await recordSyncFailure(app.db, s, message, app.config.gitSync.maxBackoffSeconds).catch(() => {});
      throw failure ?? err;
    }
  });
}

function payloadOf(s: GitSyncRow): GitJobPayload {
  return { spaceId: '', url: s.url, ...(s.credentials ? { credentials: s.credentials } : {}), ref: s.ref };
}

/** The cached repository of the sync's remote (shared with the space syncs of the same repository). */
function withSiteRepository<T>(app: AppContext, s: GitSyncRow, fn: (repo: Repository) => Promise<T>): Promise<T> {
  return withRepository(
    app.config.git.cacheDir,
    cacheKey(s.url, undefined, s.organization_id),
    remoteFor(app, payloadOf(s)),
    (key, work) => withGitCacheLock(app.db, key, work),
    fn,
  );
}

/** docs.yaml (or gitbook-docs.yaml) of a commit under the project directory: its path and blob. */
async function docsYamlAt(repo: Repository, commit: string, projectDirectory: string) {
  const files = await repo.listFiles(commit);
  const path = findDocsYaml(files.keys(), projectDirectory);
  return { files, path, entry: path ? files.get(path)! : null };
}

async function siteSyncOnce(app: AppContext, s: GitSyncRow, run: OperationRun): Promise<SiteRunResult> {
  const siteId = s.site_id!;
  const site = await getSite(app.db, siteId);
  if (!site) throw new JobSkipped('The site was deleted');
  const head = await remoteBranchHead(remoteFor(app, payloadOf(s)), s.ref);
  const firstSync = !s.synced_commit;
  if (!head) {
    // An empty repository, or a branch not made yet: a first export makes it with the site's docs.yaml.
    if (!firstSync) throw new GitSyncError(`The branch "${branchOf(s.ref)}" no longer exists on the remote`, 'upstream');
    if (s.direction !== 'export')
      throw new GitSyncError(
        `No docs.yaml (or gitbook-docs.yaml) to import: the remote has no branch "${branchOf(s.ref)}" (a sync with direction "export" writes the site's docs.yaml there)`,
        'not-found',
      );
  }
  await run.progress(0.1);
  const headMoved = head !== s.synced_commit;

  // What the branch holds, read under the repository's cache lock; the site is changed after it
  // (the space runs of the same repository do not wait for the site's).
  const seen = await withSiteRepository(app, s, async (repo) => {
    if (!head) return { importing: false, path: null, text: null };
    if (!(await repo.hasObject(head))) await repo.fetch(s.ref);
    const now = await docsYamlAt(repo, head, s.project_directory);
    let docsMoved = firstSync;
    if (!firstSync && headMoved) {
      const before = (await repo.hasObject(s.synced_commit!)) ? await docsYamlAt(repo, s.synced_commit!, s.project_directory) : null;
      docsMoved = !before || before.entry?.oid !== now.entry?.oid;
    }
    const importing = docsMoved && s.direction !== 'export';
    return {
      importing,
      path: now.path,
      text: importing && now.entry ? (await repo.readBlob(now.entry.oid)).toString('utf8') : null,
    };
  });
  await run.progress(0.2);

  if (seen.importing) {
    if (!head || !seen.path || seen.text === null)
      throw new GitSyncError(
        `No docs.yaml (or gitbook-docs.yaml) in ${s.project_directory ? `"${s.project_directory}"` : 'the repository root'}` +
          (firstSync ? ' to import (a sync with direction "export" writes the site\'s docs.yaml there)' : ''),
      );
    // A bad file fails here, before anything is applied.
    const parsed = parseDocsYaml(seen.text, seen.path);
    await setGitSyncStatus(app.db, s, 'importing');
    const applied = await applySiteConfig(app, {
      siteId,
      config: parsed.config,
      createdBy: s.created_by,
      spaceForDirectory: (directory, entry) => spaceForDirectory(app, s, directory, entry),
    });
    await followDirectories(app, s, applied.spaces);
    await run.progress(0.8);
    const configHash = hashOf(writeDocsYaml(await siteConfigOf(app, siteId)));
    const version = (await getSite(app.db, siteId))!.version;
    await recordSiteSyncSuccess(app.db, s, { commit: head, siteVersion: version, configHash, imported: head });
    const spaceRuns = await requestSpaceRuns(app, s);
    // Variants whose source was imported already run again now; the others when their source's
    // import lands (runs.ts asks for them).
    await refreshLanguageVariants(app, applied.variants, s.created_by).catch((err: unknown) =>
      app.log.error({ err, siteId }, 'could not refresh the language variants'),
    );
    return {
      action: 'import',
      head,
      commit: head,
      changed: applied.changed,
      spaceRuns,
      ...(parsed.warnings.length || applied.warnings.length ? { warnings: [...parsed.warnings, ...applied.warnings] } : {}),
    };
  }

  let configHash = s.synced_config_hash;
  let version = site.version;
  if (s.direction !== 'import' && (site.version !== s.synced_site_version || !configHash)) {
    const config = await siteConfigOf(app, siteId);
    const text = writeDocsYaml(config);
    version = (await getSite(app.db, siteId))!.version;
    if (hashOf(text) !== configHash || (firstSync && s.direction === 'export')) {
      await setGitSyncStatus(app.db, s, 'exporting');
      const commit = await withSiteRepository(app, s, (repo) => writeBack(repo, s, head, text));
      // One-way to the repository: each directory the file names is written by its space's own sync.
      const linked = s.direction === 'export' ? await followDirectories(app, s, await directoriesOf(app, siteId, config)) : false;
      await recordSiteSyncSuccess(app.db, s, {
        commit: (commit ?? head)!,
        siteVersion: version,
        configHash: hashOf(text),
        exported: commit,
      });
      const spaceRuns = headMoved || linked ? await requestSpaceRuns(app, s) : [];
      return { action: 'export', head, ...(commit ? { commit } : { unchanged: true }), spaceRuns };
    }
    configHash = hashOf(text);
  }
  // Here the branch exists: without it, only a first export gets this far, and it wrote above.
  await recordSiteSyncSuccess(app.db, s, { commit: head!, siteVersion: version, configHash: configHash ?? '' });
  const spaceRuns = headMoved ? await requestSpaceRuns(app, s) : [];
  return { action: 'none', head, spaceRuns };
}

/**
 * docs.yaml as `text`, committed on `head` (that file alone: every other path keeps its entry) and
 * pushed without force (a branch that moved meanwhile refuses it: the run fails and the next one
 * imports). Returns the new commit, or null when the head already holds that text.
 */
async function writeBack(repo: Repository, s: GitSyncRow, head: string | null, text: string): Promise<string | null> {
  const now = head
    ? await docsYamlAt(repo, head, s.project_directory)
    : { files: new Map<string, RepoFileEntry>(), path: null, entry: null };
  const bytes = Buffer.from(text, 'utf8');
  if (now.entry && (await repo.readBlob(now.entry.oid)).equals(bytes)) return null;
  const base = s.project_directory ? `${s.project_directory}/` : '';
  const path = now.path ?? `${base}docs.yaml`;
  const entry = { oid: '', mode: now.entry?.mode === '100755' ? '100755' : '100644' };
  const tree = new Map(now.files);
  tree.set(path, entry);
  let given = false;
  const treeOid = await repo.writeFilesAndTree(tree, [entry], async () => (given ? null : ((given = true), bytes)));
  if (head && (await repo.commitInfo(head)).tree === treeOid) return null;
  const commit = await repo.commit({
    tree: treeOid,
    parents: head ? [head] : [],
    message: `Update ${path.split('/').pop()}: the site's structure`,
    author: AUTHOR,
  });
  await repo.push(commit, s.ref, false);
  return commit;
}

/**
 * The space showing `directory` for a docs.yaml entry the site does not have yet: the one whose
 * space sync reads that folder of the same repository and branch, else a new space (made as the
 * user who set the site sync up) with a space sync of its own, linked to the site sync.
 */
async function spaceForDirectory(app: AppContext, s: GitSyncRow, directory: string, entry: DocsYamlSpace): Promise<string> {
  const projectDirectory = resolveDirectory(s.project_directory, directory);
  const found = await findSpaceSyncOfRemote(app.db, s.organization_id, { url: s.url, ref: s.ref, projectDirectory });
  if (found?.space_id) return found.space_id;
  if (!s.created_by) throw invalid('The user who set up this site sync no longer exists: set it up again (PUT) to create new spaces');
  const space = await createSpace(app, { userId: s.created_by, tokenId: 'git-sync' }, s.organization_id, {
    title: (entry.title || directory).slice(0, 50),
    empty: true,
    ...(entry.content.language ? { language: entry.content.language } : {}),
  });
  await insertSpaceGitSync(app.db, {
    ...linkedSettings(s, projectDirectory),
    id: newId(),
    organizationId: s.organization_id,
    spaceId: space.id,
    createdBy: s.created_by,
    siteSyncId: s.id,
    ...newWebhook(app),
  });
  return space.id;
}

/**
 * Each directory's space synced from that directory: a space sync this site sync made follows its
 * entry's directory when the file moved it, and the site sync's repository, branch, credentials and
 * direction when a PUT changed them (moved: what it synced is forgotten, the next run imports anew); a space the site showed before its first sync (adopted) and that syncs from nowhere gets a
 * space sync linked to this one (a space with content of its own then gets the folder's content in a
 * change request, as any first sync). A space synced from elsewhere is left as it is.
 */
async function followDirectories(app: AppContext, s: GitSyncRow, spaces: AppliedSiteSpace[]): Promise<boolean> {
  let changed = false;
  for (const entry of spaces) {
    const projectDirectory = resolveDirectory(s.project_directory, entry.directory);
    const sync = await getGitSyncOfSpace(app.db, entry.spaceId);
    if (!sync) {
      changed = true;
      await insertSpaceGitSync(app.db, {
        ...linkedSettings(s, projectDirectory),
        id: newId(),
        organizationId: s.organization_id,
        spaceId: entry.spaceId,
        createdBy: s.created_by,
        siteSyncId: s.id,
        ...newWebhook(app),
      });
    } else if (sync.site_sync_id === s.id) {
      // The site sync's settings (a PUT changed them) and the entry's directory, kept in step.
      const moved = sync.url !== s.url || sync.ref !== s.ref || sync.project_directory !== projectDirectory;
      if (moved || sync.credentials !== s.credentials || sync.direction !== s.direction) {
        changed = true;
        await updateGitSyncSettings(app.db, sync.id, linkedSettings(s, projectDirectory), moved);
      }
    }
  }
  return changed;
}

/**
 * The directories of a config written from the site (siteConfigOf, which gave every site space its
 * key), each with the space its site space shows: one entry per space (a space the site shows
 * twice is written once, in its first directory).
 */
async function directoriesOf(app: AppContext, siteId: string, config: DocsYamlConfig): Promise<AppliedSiteSpace[]> {
  const byKey = new Map((await listAllSiteSpaces(app.db, siteId)).filter((r) => r.git_key).map((r) => [r.git_key!, r]));
  const seen = new Set<string>();
  const out: AppliedSiteSpace[] = [];
  for (const { space } of spacesOf(config.site.structure)) {
    const row = byKey.get(space.key);
    if (!row || space.content.directory === null || seen.has(row.space_id)) continue;
    seen.add(row.space_id);
    out.push({ key: space.key, directory: space.content.directory, spaceId: row.space_id, siteSpaceId: row.id });
  }
  return out;
}

/** The settings of a space sync a site sync makes for one of its directories (webhooks only: the site run asks for its runs). */
function linkedSettings(s: GitSyncRow, projectDirectory: string): GitSyncSettings {
  return {
    url: s.url,
    credentials: s.credentials,
    ref: s.ref,
    projectDirectory,
    direction: s.direction,
    pollIntervalSeconds: 0,
  };
}

/** Ask for a run of every space of the site synced from the site sync's repository and branch. */
async function requestSpaceRuns(app: AppContext, s: GitSyncRow): Promise<string[]> {
  const spaceIds = [...new Set((await listAllSiteSpaces(app.db, s.site_id!)).map((r) => r.space_id))];
  const runs: string[] = [];
  for (const spaceId of spaceIds) {
    const sync = await getGitSyncOfSpace(app.db, spaceId);
    if (!sync || sync.url !== s.url || sync.ref !== s.ref) continue;
    const id = await requestRun(app, sync.id);
    if (id) runs.push(id);
  }
  return runs;
}
