// Git export of a space: the work of the git.export job (generate the files, one new commit, push).
import type { AppContext } from '../context.js';
import type { GitJobPayload } from '../queue/registry.js';
import { getSpace } from '../db/repos/spaces.js';
import { getGitSyncState } from '../db/repos/git-sync.js';
import { revisionSnapshot } from '../content/commit.js';
import { canonicalJson } from '../content/objects.js';
import { dumpYaml } from './format/yaml.js';
import { loadBodies, type TreePage } from '../content/snapshot.js';
import { blobReader, type StoredFileRef } from './export-blobs.js';
import { GitSyncError, isContent, type RepoFileEntry } from './repo.js';
import {
  generateRepository,
  CONFIG_FILE,
  RepoFormatError,
  type ImportedPage,
  type ExportPage,
  type ExportFile,
  type ParsedRepository,
} from './format.js';
import { projectFiles, readRepository, recordSync, sameFolder, withJobRepository } from './sync.js';

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
  p: GitJobPayload & {
    commitMessage: string;
    /** The commit's author (Git Sync: the user who merged); the platform's own name when not given. */
    commitAuthor?: { name: string; email: string };
    /** Export this revision of the space instead of its current one (Git Sync exports one commit per merge). */
    revisionId?: string;
  },
  progress: (f: number) => Promise<void>,
) {
  const projectDir = p.repoProjectDirectory ?? '';
  const space = await getSpace(app.db, p.spaceId);
  if (!space) throw new GitSyncError('The space no longer exists');
  const { snapshot } = await revisionSnapshot(app.db, p.spaceId, p.revisionId ?? space.revision_id);
  const bodies = await loadBodies(
    app.db,
    p.spaceId,
    snapshot.ordered.map((t) => t.node),
  );
  const state = await getGitSyncState(app.db, p.spaceId);

  return withJobRepository(app, p, async (repo) => {
    const head = await repo.remoteHead(p.ref);
    if (head) await repo.fetch(p.ref);
    const synced =
      state && state.url === p.url && state.ref === p.ref && state.last_commit && (await repo.hasObject(state.last_commit))
        ? state.last_commit
        : null;
    // The export builds on what the space synced with. When the branch moved on only outside the
    // project directory (another space of a monorepo exported, someone edited a file elsewhere),
    // the head holds the same project folder: the export builds on the head instead, replacing only
    // that folder, a fast-forward that keeps what the others wrote. A branch that changed the
    // folder itself is a non-fast-forward, refused unless `force`.
    const parent = p.force
      ? head
      : synced && head && synced !== head && (await sameFolder(repo, synced, head, projectDir))
        ? head
        : (synced ?? head);
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
      // Only regular files are managed: a symlink or submodule at a page's path (read as a missing
      // page) stays unless that page was written on the platform since.
      for (const m of managed) if (isContent(tree.get(prefix + m) ?? { oid: '', mode: '100644' })) tree.delete(prefix + m);
    }
    // The blobs and trees go into one new pack, the blobs in the tree's order (blobReader). A file
    // written where the parent had one keeps its mode (an executable page stays 100755).
    const parentModes = parentFiles?.all;
    const blobs = [...generated].map(([rel, content]) => {
      const mode = parentModes?.get(prefix + rel)?.mode;
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
      author: p.commitAuthor ?? { name: 'Docs platform', email: 'docs-platform@localhost' },
    });
    await repo.push(commit, p.ref, !!p.force);
    await recordSync(app.db, p, commit);
    return { commit, unchanged: false };
  });
}
