// A local bare cache of a remote repository, read and written with isomorphic-git.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import git from 'isomorphic-git';
import type { HttpClient } from 'isomorphic-git';
import type { GitCredentials } from './credentials.js';
import { receivePack, RemotePackError } from './pack/fetch.js';
import { pushPack, PushRefusedError } from './pack/push.js';
import { PackBuilder } from './pack/build.js';
import { objectId } from './pack/index.js';
import { parseCommit, parseTree, treeObject, type NewTreeEntry } from './pack/objects.js';
import { PackFormatError } from './pack/read.js';
import { GitSizeLimitError } from './transport.js';
import { ObjectStore } from './pack/store.js';
import { DomainError, type ErrorKind } from '../core/errors.js';

/**
 * A final outcome of a sync run, in words its user can act on (the remote refused, the repository
 * is not a docs repository, a file is over the limit): the run fails with this message, no retry.
 * Unprocessable unless said otherwise; what the remote answered is `upstream`.
 */
export class GitSyncError extends DomainError {
  constructor(message: string, kind: ErrorKind = 'unprocessable') {
    super(kind, message);
    this.name = 'GitSyncError';
  }
}

/**
 * What a fetch keeps of the objects its pack's indexing inflated: an import reads most of them
 * next (its pages, then its files), and would inflate them again. At most 32 MB, objects up to 1 MB.
 */
const KEEP_RECEIVED = { bytes: 32 * 1024 * 1024, objectBytes: 1024 * 1024 };

interface Remote {
  url: string;
  credentials?: GitCredentials;
  http: HttpClient;
}

export interface RepoFileEntry {
  oid: string;
  mode: string;
}

const GITLINK = '160000';
const SYMLINK = '120000';

/** A regular file (not a symlink or a submodule): what the docs format reads. */
export function isContent(entry: RepoFileEntry): boolean {
  return entry.mode !== GITLINK && entry.mode !== SYMLINK;
}

const locks = new Map<string, Promise<unknown>>();

/** Run `fn` with exclusive use of one cache directory in this process (isomorphic-git is not safe for concurrent writers). */
async function exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const prev = locks.get(key) ?? Promise.resolve();
  const run = prev.catch(() => {}).then(fn);
  locks.set(key, run);
  try {
    return await run;
  } finally {
    if (locks.get(key) === run) locks.delete(key);
  }
}

/**
 * The remote URL a cache is keyed by: without credentials, query or fragment, host in lower case,
 * default port, trailing slashes and `.git` dropped (`https://Host/acme/docs.git/` and
 * `https://host/acme/docs` are one repository).
 */
export function normalizedRemote(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    u.pathname = u.pathname.replace(/\/+$/, '').replace(/\.git$/, '') || '/';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

/**
 * The key of a cached bare repository: the normalized remote URL, so that the spaces synced from
 * one repository (a monorepo's project directories) share one copy and one fetch per push; or,
 * with `repoCacheID`, that id within its `scope` (the organization), so that an id chosen by one
 * organization never hands another the objects fetched under it. Which commits a run may read is
 * not decided by the key: every run asks the remote, with its own credentials, which commit the
 * branch is (see Repository.fetch).
 */
export function cacheKey(remoteUrl: string, cacheId: string | undefined, scope: string): string {
  return createHash('sha256')
    .update(cacheId ? `scope:${scope}\nid:${cacheId}` : `url:${normalizedRemote(remoteUrl)}`)
    .digest('hex')
    .slice(0, 40);
}

/**
 * Runs `fn` holding the lock of one cache key across processes (workers on other processes or
 * machines sharing GIT_CACHE_DIR): given by the caller (a database advisory lock).
 */
export type CacheLock = <T>(key: string, fn: () => Promise<T>) => Promise<T>;

/**
 * Open (creating if needed) the cached bare repository of `key` (see cacheKey) and run `fn` with
 * it. Runs on one cache are serialized: in this process (isomorphic-git is not safe for concurrent
 * writers) and across processes by `lock`. Fetches reuse what is already there.
 */
export async function withRepository<T>(
  cacheDir: string,
  key: string,
  remote: Remote,
  lock: CacheLock,
  fn: (repo: Repository) => Promise<T>,
): Promise<T> {
  const gitdir = path.resolve(cacheDir, `${key}.git`);
  return exclusive(gitdir, () =>
    lock(key, async () => {
      await fs.promises.mkdir(gitdir, { recursive: true });
      if (!fs.existsSync(path.join(gitdir, 'HEAD'))) await git.init({ fs, gitdir, bare: true, defaultBranch: 'main' });
      const repo = new Repository(gitdir, remote);
      try {
        return await fn(repo);
      } finally {
        await repo.close();
      }
    }),
  );
}

/** What a remote advertises before a fetch or a push. */
interface Advertisement {
  refs: { ref: string; oid: string }[];
  capabilities: string[];
}

/** Writes one object into the pack being built; gives its id. */
type AddObject = (type: 'blob' | 'tree', data: Buffer) => Promise<string>;

async function addBlobs(add: AddObject, next: () => Promise<Buffer | null>): Promise<string[]> {
  const oids: string[] = [];
  for (let bytes = await next(); bytes; bytes = await next()) oids.push(await add('blob', bytes));
  return oids;
}

/** The nested trees of a flat map of paths, children before parents; gives the root tree's id. */
async function addTrees(add: AddObject, files: Map<string, RepoFileEntry>): Promise<string> {
  interface Dir {
    files: Map<string, RepoFileEntry>;
    dirs: Map<string, Dir>;
  }
  const root: Dir = { files: new Map(), dirs: new Map() };
  for (const [p, entry] of files) {
    const parts = p.split('/');
    let d = root;
    for (const seg of parts.slice(0, -1)) {
      if (!d.dirs.has(seg)) d.dirs.set(seg, { files: new Map(), dirs: new Map() });
      d = d.dirs.get(seg)!;
    }
    d.files.set(parts.at(-1)!, entry);
  }
  const write = async (d: Dir): Promise<string> => {
    const entries: NewTreeEntry[] = [];
    for (const [name, sub] of d.dirs) entries.push({ name, mode: '40000', oid: await write(sub) });
    for (const [name, e] of d.files) entries.push({ name, mode: e.mode, oid: e.oid });
    return add('tree', treeObject(entries));
  };
  return write(root);
}

export class Repository {
  /** isomorphic-git's object cache: pack indexes are read once per handle, not once per object. */
  private readonly cache = {};
  /** Objects read with positioned reads of the packs (isomorphic-git would load a whole pack per read). */
  private readonly objects: ObjectStore;

  constructor(
    readonly gitdir: string,
    private readonly remote: Remote,
  ) {
    this.objects = new ObjectStore(gitdir);
  }

  async close(): Promise<void> {
    await this.objects.close();
  }

  private auth() {
    const c = this.remote.credentials;
    return c ? () => ({ username: c.username, password: c.password }) : undefined;
  }

  /**
   * The commit a remote branch points at, or null when the branch does not exist there, as the
   * remote's receive-pack advertises it (an export asks, then pushes: see pushAdvertisement).
   */
  async remoteHead(ref: string): Promise<string | null> {
    return (await this.pushAdvertisement()).refs.find((r) => r.ref === ref)?.oid ?? null;
  }

  /**
   * The remote's receive-pack advertisement (its refs and capabilities), asked once: an export
   * reads the branch head from it and pushes against the same one (the remote refuses the push if
   * the branch moved in between), one request fewer than asking twice.
   */
  private pushAdvertisement(): Promise<Advertisement> {
    this.advertisement ??= this.advertised(true).catch((err) => {
      throw describeRemoteError(err, this.remote.url);
    });
    return this.advertisement;
  }

  private advertisement: Promise<Advertisement> | null = null;

  /** The refs and capabilities the remote's upload-pack (or, `forPush`, receive-pack) advertises (protocol v1). */
  private async advertised(forPush: boolean): Promise<Advertisement> {
    const info = await git.getRemoteInfo2({
      http: this.remote.http,
      url: this.remote.url,
      onAuth: this.auth(),
      onAuthFailure: () => ({ cancel: true }),
      forPush,
      protocolVersion: 1,
    });
    return info.protocolVersion === 1
      ? { refs: info.refs ?? [], capabilities: Object.keys(info.capabilities) }
      : { refs: [], capabilities: [] };
  }

  /**
   * Fetch one branch (reusing objects already cached); returns the fetched commit. The pack streams
   * to a file and is indexed from disk (src/git/pack/), so memory does not grow with the repository.
   */
  async fetch(ref: string): Promise<string> {
    const branch = ref.replace(/^refs\/heads\//, '');
    try {
      const info = await this.advertised(false);
      const refs = new Map(info.refs.map((r) => [r.ref, r.oid]));
      const candidates = [branch, `refs/${branch}`, `refs/tags/${branch}`, `refs/heads/${branch}`];
      const want = candidates.map((c) => refs.get(c)).find((oid) => oid !== undefined);
      if (!want) throw new GitSyncError(`The remote has no branch "${branch}"`, 'not-found');
      const tracking = `refs/remotes/origin/${branch}`;
      if (!(await this.objects.has(want))) {
        const cached = await git.resolveRef({ fs, gitdir: this.gitdir, ref: tracking }).catch(() => null);
        const haves = cached && (await this.objects.has(cached)) ? [cached] : [];
        const c = this.remote.credentials;
        const received = await receivePack(
          this.gitdir,
          {
            http: this.remote.http,
            url: this.remote.url,
            headers: c ? { authorization: `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}` } : {},
            want,
            haves,
            capabilities: info.capabilities,
          },
          KEEP_RECEIVED,
        );
        await this.objects.refresh();
        this.objects.receive(received);
        if (!(await this.objects.has(want))) throw new RemotePackError('the pack does not hold the requested commit');
      }
      await git.addRemote({ fs, gitdir: this.gitdir, remote: 'origin', url: this.remote.url, force: true });
      await git.writeRef({ fs, gitdir: this.gitdir, ref: tracking, value: want, force: true });
      return want;
    } catch (err) {
      throw describeRemoteError(err, this.remote.url, branch);
    }
  }

  async hasObject(oid: string): Promise<boolean> {
    return this.objects.has(oid);
  }

  async commitInfo(oid: string): Promise<{ message: string; tree: string; parents: string[] }> {
    const obj = await this.objects.read(oid);
    if (obj?.type === 'commit') return parseCommit(obj.data);
    const c = await git.readCommit({ fs, gitdir: this.gitdir, oid, cache: this.cache });
    return { message: c.commit.message, tree: c.commit.tree, parents: c.commit.parent };
  }

  private async readTree(oid: string) {
    const obj = await this.objects.read(oid);
    if (obj?.type === 'tree') return parseTree(obj.data);
    return (await git.readTree({ fs, gitdir: this.gitdir, oid, cache: this.cache })).tree;
  }

  /**
   * Every entry of a commit's tree but folders, keyed by repository path: files, symlinks (mode
   * 120000, see `isContent`) and submodules (gitlinks, mode 160000), so that a tree written back
   * from it keeps them all.
   */
  async listFiles(commit: string): Promise<Map<string, RepoFileEntry>> {
    const out = new Map<string, RepoFileEntry>();
    const walk = async (treeOid: string, prefix: string) => {
      for (const e of await this.readTree(treeOid)) {
        const p = prefix ? `${prefix}/${e.path}` : e.path;
        if (e.type === 'tree') await walk(e.oid, p);
        else out.set(p, { oid: e.oid, mode: e.mode });
      }
    };
    await walk((await this.commitInfo(commit)).tree, '');
    return out;
  }

  /**
   * The id of the tree at `dir` ('' for the root) in a commit's tree, or null when the commit has
   * no such folder: two commits with the same id there hold the same files under `dir`.
   */
  async subtree(commit: string, dir: string): Promise<string | null> {
    let oid = (await this.commitInfo(commit)).tree;
    for (const name of dir.split('/').filter(Boolean)) {
      const entry = (await this.readTree(oid)).find((e) => e.path === name);
      if (entry?.type !== 'tree') return null;
      oid = entry.oid;
    }
    return oid;
  }

  /** `oids` in the order this cache stores them (see ObjectStore.storageOrder). */
  storageOrder(oids: string[]): Promise<string[]> {
    return this.objects.storageOrder(oids);
  }

  async readBlob(oid: string): Promise<Buffer> {
    const obj = await this.objects.read(oid);
    if (obj?.type === 'blob') return obj.data;
    const { blob } = await git.readBlob({ fs, gitdir: this.gitdir, oid, cache: this.cache });
    return Buffer.from(blob);
  }

  /**
   * An export's objects in one new pack: the blobs whose bytes `next` gives in order (null at the
   * end), each one's id set on its entry of `blobs`, then the nested trees of `files`, a flat map
   * of paths holding those entries (src/git/pack/build.ts: one pack rather than a loose file per
   * object, and one for blobs and trees, whose file, checksum pass, index and rename are paid
   * once). Objects the repository has already are not written again: an export of unchanged
   * content adds no pack. Returns the root tree's id.
   */
  async writeFilesAndTree(files: Map<string, RepoFileEntry>, blobs: RepoFileEntry[], next: () => Promise<Buffer | null>): Promise<string> {
    return this.withNewPack(async (add) => {
      const oids = await addBlobs(add, next);
      if (oids.length !== blobs.length) throw new Error(`writeFilesAndTree: ${oids.length} blobs for ${blobs.length} entries`);
      oids.forEach((oid, i) => (blobs[i]!.oid = oid));
      return addTrees(add, files);
    });
  }

  /**
   * Run `fn` with a writer of objects into one new pack (objects the cache's packs hold are not
   * written again; it gives each object's id), then make the pack visible, or drop it on failure.
   */
  private async withNewPack<T>(fn: (add: AddObject) => Promise<T>): Promise<T> {
    const pack = await PackBuilder.create(this.gitdir);
    let out: T;
    try {
      out = await fn(async (type, data) => {
        const oid = objectId(type, data);
        return (await this.objects.hasPacked(oid)) ? oid : pack.add(type, data, oid);
      });
      await pack.finish();
    } catch (err) {
      await pack.abort();
      throw err;
    }
    await this.objects.refresh();
    return out;
  }

  async commit(o: { tree: string; parents: string[]; message: string; author: { name: string; email: string } }): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const who = { ...o.author, timestamp: now, timezoneOffset: 0 };
    return git.writeCommit({
      fs,
      gitdir: this.gitdir,
      commit: {
        message: o.message.endsWith('\n') ? o.message : `${o.message}\n`,
        tree: o.tree,
        parent: o.parents,
        author: who,
        committer: who,
      },
    });
  }

  /**
   * Push a commit to a remote branch; without `force` a non-fast-forward is refused. Only the
   * objects the remote lacks are sent: those of the new commits (up to the commits the remote
   * advertises) that are not in the trees of the advertised commits this cache holds; the pack is
   * sent while it is made (src/git/pack/push.ts).
   */
  async push(commit: string, ref: string, force: boolean): Promise<void> {
    const { refs, capabilities } = await this.pushAdvertisement();
    this.advertisement = null; // a later push asks again
    const old = refs.find((r) => r.ref === ref)?.oid ?? null;
    if (old === commit) return;
    if (old && !force && !(await this.reaches(commit, old))) throw new GitSyncError(NON_FAST_FORWARD, 'conflict');
    const c = this.remote.credentials;
    try {
      await pushPack({
        http: this.remote.http,
        url: this.remote.url,
        headers: c ? { authorization: `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}` } : {},
        oldOid: old,
        newOid: commit,
        ref,
        capabilities,
        // In storage order: the pack is then copied from ours in one sequential pass.
        oids: await this.objects.storageOrder(
          await this.missingObjects(
            commit,
            refs.map((r) => r.oid),
          ),
        ),
        read: (oid) => this.objects.read(oid),
        stored: (oid) => this.objects.stored(oid),
      });
    } catch (err) {
      if (err instanceof PushRefusedError) {
        if (/non-fast-forward|fetch first/.test(err.reason)) throw new GitSyncError(NON_FAST_FORWARD, 'conflict');
        throw new GitSyncError(err.message, 'upstream');
      }
      throw describeRemoteError(err, this.remote.url);
    }
  }

  /** Whether `target` is `from` or one of its ancestors in this cache. */
  private async reaches(from: string, target: string): Promise<boolean> {
    const seen = new Set<string>();
    const queue = [from];
    while (queue.length) {
      const oid = queue.pop()!;
      if (oid === target) return true;
      if (seen.has(oid)) continue;
      seen.add(oid);
      const obj = await this.objects.read(oid);
      if (obj?.type === 'commit') queue.push(...parseCommit(obj.data).parents);
    }
    return false;
  }

  /**
   * The objects of `commit` a remote with these ref tips lacks: the commits from `commit` back to
   * the tips, and the trees and blobs of theirs that the tips' trees (those this cache holds) do
   * not have. Submodule commits are never sent.
   */
  private async missingObjects(commit: string, tips: string[]): Promise<string[]> {
    const remoteTips = new Set(tips);
    const commits: { oid: string; tree: string }[] = [];
    const boundary: string[] = [];
    const seen = new Set<string>();
    const queue = [commit];
    while (queue.length) {
      const oid = queue.pop()!;
      if (seen.has(oid)) continue;
      seen.add(oid);
      const obj = await this.objects.read(oid);
      if (obj?.type !== 'commit') continue; // not here: the remote must have it
      const parsed = parseCommit(obj.data);
      if (remoteTips.has(oid)) {
        boundary.push(parsed.tree);
        continue;
      }
      commits.push({ oid, tree: parsed.tree });
      queue.push(...parsed.parents);
    }
    const have = new Set<string>();
    const collect = async (tree: string) => {
      if (have.has(tree)) return;
      have.add(tree);
      const obj = await this.objects.read(tree);
      if (obj?.type !== 'tree') return;
      for (const e of parseTree(obj.data)) {
        if (e.type === 'tree') await collect(e.oid);
        else have.add(e.oid);
      }
    };
    for (const tree of boundary) await collect(tree);
    const out: string[] = [];
    const add = async (tree: string) => {
      if (have.has(tree)) return;
      have.add(tree);
      out.push(tree);
      for (const e of await this.readTree(tree)) {
        if (e.type === 'tree') await add(e.oid);
        else if (e.type === 'blob' && !have.has(e.oid)) {
          have.add(e.oid);
          out.push(e.oid);
        }
      }
    };
    for (const c of commits) {
      out.push(c.oid);
      await add(c.tree);
    }
    return out;
  }
}

const NON_FAST_FORWARD =
  'The remote branch has commits that are not in this space (non-fast-forward): import them first, or export with force';

/** Turn isomorphic-git errors into clear reasons, never echoing credentials. */
function describeRemoteError(err: unknown, url: string, branch?: string): Error {
  if (err instanceof GitSyncError) return err;
  const e = err as { code?: string; message?: string; data?: { statusCode?: number; statusMessage?: string } };
  const host = safeHost(url);
  if (e.code === 'HttpError' || e.code === 'UserCanceledError') {
    const status = e.data?.statusCode;
    if (status === 401 || status === 403 || e.code === 'UserCanceledError')
      return new GitSyncError(`Authentication to ${host} failed: check the credentials in the URL`, 'upstream');
    if (status === 404) return new GitSyncError(`Repository not found at ${host}`, 'upstream');
    return new GitSyncError(`The git server at ${host} answered HTTP ${status ?? '?'}`, 'upstream');
  }
  if (err instanceof GitSizeLimitError) return new GitSyncError(err.message, 'limit');
  if (err instanceof RemotePackError || err instanceof PackFormatError)
    return new GitSyncError(`The git server at ${host} sent an unusable answer: ${(err as Error).message}`, 'upstream');
  if (e.code === 'NotFoundError' && branch) return new GitSyncError(`The remote has no branch "${branch}"`, 'not-found');
  if (e.code === 'SmartHttpError' || e.code === 'EmptyServerResponseError')
    return new GitSyncError(`${host} is not a git smart-HTTP server`, 'upstream');
  return new GitSyncError(`Could not reach the repository at ${host}: ${String(e.message ?? err).split('\n')[0]}`, 'upstream');
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the remote';
  }
}
