// The pack fetcher, indexer and reader of src/git/pack/ against packs a real git server sends:
// every object read equals what isomorphic-git reads, the .idx equals `git index-pack`'s, deltas
// (ofs-deltas in long chains) resolve, and a second fetch brings only the new objects.
import fs from 'node:fs';
import { copyFile, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import git from 'isomorphic-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRepository, type CacheLock, type Repository, type RepoFileEntry } from '../../../src/git/repo.js';
import { guardedHttp } from '../../../src/git/transport.js';
import { indexPack, objectId, PackIdx } from '../../../src/git/pack/index.js';
import { parseCommit, parseTree } from '../../../src/git/pack/objects.js';
import { PackFormatError } from '../../../src/git/pack/read.js';
import { packChunks, pushPack } from '../../../src/git/pack/push.js';
import { ObjectStore } from '../../../src/git/pack/store.js';
import { gitCli, startGitServer, type GitServer } from '../../helpers/git-server.js';

let server: GitServer;
let work: string;
let remoteUrl: string;
let workTree: string;

const http = guardedHttp({ allowPrivate: true, timeoutMs: 30_000, maxBytes: 1024 * 1024 * 1024 });

/** A long text file, each commit editing a few lines of it (what makes git store deltas). */
function manual(version: number): string {
  const lines = Array.from(
    { length: 1500 },
    (_, i) => `Line ${i}: ${'the quick brown fox '.repeat(3)}${i % 97 === version ? `edit ${version}` : ''}`,
  );
  return `${lines.join('\n')}\n`;
}

async function commitAll(message: string) {
  await gitCli(['add', '-A'], workTree);
  await gitCli(['commit', '-q', '-m', message], workTree);
  await gitCli(['push', '-q', 'origin', 'HEAD:refs/heads/main'], workTree);
}

async function packFiles(gitdir: string): Promise<string[]> {
  const dir = path.join(gitdir, 'objects', 'pack');
  return (await readdir(dir)).filter((n) => n.endsWith('.pack')).map((n) => path.join(dir, n));
}

/** Every object of every pack of `gitdir`, read by our store and by isomorphic-git: they must agree. */
async function compareAll(gitdir: string): Promise<number> {
  const store = new ObjectStore(gitdir);
  let n = 0;
  try {
    for (const pack of await packFiles(gitdir)) {
      const verify = await gitCli(['verify-pack', '-v', pack], gitdir);
      const oids = [...verify.matchAll(/^([0-9a-f]{40}) (commit|tree|blob|tag) /gm)].map((m) => [m[1]!, m[2]!] as const);
      for (const [oid, type] of oids) {
        const ours = await store.read(oid);
        const theirs = await git.readObject({ fs, gitdir, oid, format: 'content' });
        expect(ours?.type, oid).toBe(type);
        expect(ours!.data.equals(Buffer.from(theirs.object as Uint8Array)), `${type} ${oid}`).toBe(true);
        if (type === 'tree') expect(parseTree(ours!.data)).toEqual((await git.readTree({ fs, gitdir, oid })).tree);
        if (type === 'commit') {
          const c = (await git.readCommit({ fs, gitdir, oid })).commit;
          expect(parseCommit(ours!.data)).toEqual({ message: c.message, tree: c.tree, parents: c.parent });
        }
        n++;
      }
    }
  } finally {
    await store.close();
  }
  return n;
}

/** No other process shares these caches: the in-process lock of withRepository is enough. */
const noLock: CacheLock = (_key, fn) => fn();

function open<T>(cacheId: string, fn: (repo: Repository) => Promise<T>): Promise<T> {
  return withRepository(path.join(work, 'cache'), cacheId, { url: remoteUrl, http }, noLock, fn);
}

beforeAll(async () => {
  server = await startGitServer();
  work = await mkdtemp(path.join(tmpdir(), 'dp-pack-test-'));
  remoteUrl = await server.createRepo('packs', {
    files: { 'docs/manual.md': manual(0), 'asset.bin': randomBytes(300_000), 'README.md': '# Hello\n' },
  });
  workTree = await server.clone('packs');
  await fs.promises.symlink('docs/manual.md', path.join(workTree, 'link.md'));
  await writeFile(path.join(workTree, 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  for (let v = 1; v <= 8; v++) {
    await writeFile(path.join(workTree, 'docs', 'manual.md'), manual(v));
    await commitAll(`Edit ${v}\n\nWith a body.\n`);
  }
  // Long delta chains, as hosted repositories have them after gc.
  await gitCli(['repack', '-a', '-d', '-f', '--depth=50', '--window=50'], path.join(server.root, 'packs.git'));
});

afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('git pack fetch, index and read', () => {
  it('fetches a repository with delta chains: the .idx is what git index-pack writes and every object reads as isomorphic-git reads it', async () => {
    const head = (await gitCli(['rev-parse', 'HEAD'], workTree)).trim();
    const gitdir = await open('full', async (repo) => {
      expect(await repo.fetch('refs/heads/main')).toBe(head);
      const files = await repo.listFiles(head);
      expect(files.get('link.md')?.mode).toBe('120000');
      expect(files.get('run.sh')?.mode).toBe('100755');
      expect((await repo.readBlob(files.get('docs/manual.md')!.oid)).toString()).toBe(manual(8));
      expect((await repo.commitInfo(head)).message).toBe('Edit 8\n\nWith a body.\n');
      return repo.gitdir;
    });
    const [pack] = await packFiles(gitdir);
    const verify = await gitCli(['verify-pack', '-v', pack!], gitdir);
    // Delta objects list their chain depth and base: the pack really has deltas to resolve.
    expect([...verify.matchAll(/^[0-9a-f]{40} blob +\d+ \d+ \d+ (\d+) [0-9a-f]{40}$/gm)].length).toBeGreaterThan(3);

    const copy = path.join(work, 'copy.pack');
    await copyFile(pack!, copy);
    await gitCli(['index-pack', '-o', path.join(work, 'git.idx'), copy], work);
    expect((await readFile(pack!.replace(/\.pack$/, '.idx'))).equals(await readFile(path.join(work, 'git.idx')))).toBe(true);
    expect(await compareAll(gitdir)).toBe(new PackIdx(await readFile(pack!.replace(/\.pack$/, '.idx'))).count);
  });

  it('a second fetch sends what the cache has and brings only the new objects; an unchanged ref fetches nothing', async () => {
    await open('incremental', (repo) => repo.fetch('main'));
    await writeFile(path.join(workTree, 'docs', 'manual.md'), manual(20));
    await writeFile(path.join(workTree, 'new.md'), '# New\n');
    await commitAll('Edit 20');
    const head = (await gitCli(['rev-parse', 'HEAD'], workTree)).trim();
    const posts = () => server.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/git-upload-pack')).length;
    const before = posts();
    const gitdir = await open('incremental', async (repo) => {
      expect(await repo.fetch('main')).toBe(head);
      expect((await repo.readBlob((await repo.listFiles(head)).get('docs/manual.md')!.oid)).toString()).toBe(manual(20));
      return repo.gitdir;
    });
    expect(posts()).toBe(before + 1);
    const packs = await packFiles(gitdir);
    expect(packs).toHaveLength(2);
    const counts = await Promise.all(packs.map(async (p) => new PackIdx(await readFile(p.replace(/\.pack$/, '.idx'))).count));
    // The new commit, its root and docs trees, the edited manual and new.md.
    expect(Math.min(...counts)).toBe(5);
    await compareAll(gitdir);

    await open('incremental', (repo) => repo.fetch('main'));
    expect(posts()).toBe(before + 1);
    expect(await git.resolveRef({ fs, gitdir, ref: 'refs/remotes/origin/main' })).toBe(head);
  });

  it('gives back the objects its indexing inflated, as the pack holds them, within the bounds it was given', async () => {
    const gitdir = await open('kept', async (repo) => (await repo.fetch('main'), repo.gitdir));
    const [pack] = await packFiles(gitdir);
    const store = new ObjectStore(gitdir);
    try {
      const all = await indexPack(pack!, { bytes: 1 << 30, objectBytes: 1 << 30 });
      expect(all.kept.size).toBe(all.objects);
      for (const [oid, obj] of all.kept) {
        expect(objectId(obj.type, obj.data)).toBe(oid);
        const read = await store.read(oid);
        expect(read?.type).toBe(obj.type);
        expect(read!.data.equals(obj.data)).toBe(true);
      }
      const sizes = [...all.kept.values()].map((o) => o.data.length);
      const small = Math.min(...sizes.filter((n) => n > 1000)) - 1;
      const bounded = await indexPack(pack!, { bytes: 20_000, objectBytes: small });
      expect(bounded.kept.size).toBeGreaterThan(0);
      expect(bounded.kept.size).toBeLessThan(all.objects);
      let total = 0;
      for (const obj of bounded.kept.values()) {
        expect(obj.data.length).toBeLessThanOrEqual(small);
        total += obj.data.length;
      }
      expect(total).toBeLessThanOrEqual(20_000);
      expect((await indexPack(pack!)).kept.size).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('makes a push pack chunk by chunk that indexes as the objects it was given, and stops at an object it cannot read', async () => {
    const gitdir = await open('chunks', async (repo) => (await repo.fetch('main'), repo.gitdir));
    const [pack] = await packFiles(gitdir);
    const store = new ObjectStore(gitdir);
    try {
      const { kept } = await indexPack(pack!, { bytes: 1 << 30, objectBytes: 1 << 30 });
      const oids = [...kept.keys()];
      // Half copied as stored, half read and deflated again.
      const stored = (oid: string) => (oids.indexOf(oid) % 2 ? store.stored(oid) : Promise.resolve(null));
      const chunks: Buffer[] = [];
      for await (const chunk of packChunks(oids, (oid) => store.read(oid), stored)) chunks.push(chunk);
      const made = path.join(work, 'made.pack');
      await writeFile(made, Buffer.concat(chunks));
      const again = await indexPack(made, { bytes: 1 << 30, objectBytes: 1 << 30 });
      expect(again.objects).toBe(oids.length);
      for (const [oid, obj] of kept) expect(again.kept.get(oid)?.data.equals(obj.data), oid).toBe(true);
      await expect(gitCli(['index-pack', '-o', path.join(work, 'made.idx'), made], work)).resolves.toBeDefined();

      const missing = '0123456789abcdef0123456789abcdef01234567';
      // Pushed, it cuts the request: the push fails with that reason and the remote moves nothing.
      const head = (await gitCli(['rev-parse', 'HEAD'], workTree)).trim();
      const push = pushPack({
        http,
        url: remoteUrl,
        headers: {},
        oldOid: null,
        newOid: head,
        ref: 'refs/heads/cut',
        capabilities: ['report-status', 'side-band-64k'],
        oids: [...oids, missing],
        read: (oid) => store.read(oid),
      });
      await expect(push).rejects.toThrow(`object ${missing} is missing from the local repository`);
      expect(await gitCli(['ls-remote', remoteUrl], work)).not.toContain('refs/heads/cut');
      const broken = packChunks([oids[0]!, missing], (oid) => store.read(oid));
      await expect(
        (async () => {
          for await (const _ of broken) void _;
        })(),
      ).rejects.toThrow(`object ${missing} is missing`);
    } finally {
      await store.close();
    }
  });

  it('refuses a corrupted pack', async () => {
    const gitdir = await open('corrupt', async (repo) => (await repo.fetch('main'), repo.gitdir));
    const [pack] = await packFiles(gitdir);
    const bytes = await readFile(pack!);
    const bad = path.join(work, 'bad.pack');
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    await writeFile(bad, bytes);
    await expect(indexPack(bad)).rejects.toThrow(PackFormatError);
    await expect(indexPack(bad)).rejects.toThrow('checksum');
  });

  it('refuses a pack over the fetch size limit with a clear reason and leaves no partial pack behind', async () => {
    const small = guardedHttp({ allowPrivate: true, timeoutMs: 30_000, maxBytes: 100_000 });
    let gitdir = '';
    await expect(
      withRepository(path.join(work, 'cache'), 'capped', { url: remoteUrl, http: small }, noLock, (repo) => {
        gitdir = repo.gitdir;
        return repo.fetch('main');
      }),
    ).rejects.toThrow(/^The repository at 127\.0\.0\.1:\d+ is over the size limit: its pack is more than 100000 bytes$/);
    expect(await readdir(path.join(gitdir, 'objects', 'pack')).catch(() => [])).toEqual([]);
  });

  it('writes blobs and their trees as one pack that git and isomorphic-git read, skipping objects the repository has', async () => {
    const blobs = [Buffer.from('one\n'), randomBytes(50_000), Buffer.from('one\n'), Buffer.alloc(0), Buffer.from(manual(3))];
    const write = async (repo: Repository, files: Map<string, RepoFileEntry>, contents: Map<string, Buffer>) => {
      const entries = [...files].filter(([p]) => contents.has(p));
      const queue = entries.map(([p]) => contents.get(p)!);
      for (const [, e] of entries) e.oid = '';
      const root = await repo.writeFilesAndTree(
        files,
        entries.map(([, e]) => e),
        async () => queue.shift() ?? null,
      );
      return { root, oids: entries.map(([, e]) => e.oid) };
    };
    const ours = () => new Map(blobs.map((b, i) => [`dir/blob-${i}`, b]));
    const entriesOf = (contents: Map<string, Buffer>) => new Map([...contents.keys()].map((p) => [p, { oid: '', mode: '100644' }]));
    const { gitdir, oids, root } = await open('built', async (repo) => {
      const head = await repo.fetch('main');
      const first = await write(repo, entriesOf(ours()), ours());
      // The same content again, and the fetched commit's own tree (its blob and trees come with
      // the fetched pack), add no pack at all.
      const before = (await packFiles(repo.gitdir)).length;
      expect((await write(repo, entriesOf(ours()), ours())).root).toBe(first.root);
      const fetched = new Map([...(await repo.listFiles(head))].map(([p, e]) => [p, { ...e }]));
      const manualNow = await repo.readBlob(fetched.get('docs/manual.md')!.oid);
      const again = await write(repo, fetched, new Map([['docs/manual.md', manualNow]]));
      expect(again.root).toBe((await repo.commitInfo(head)).tree);
      expect((await packFiles(repo.gitdir)).length).toBe(before);
      return { gitdir: repo.gitdir, ...first };
    });
    expect(oids[0]).toBe(oids[2]);
    expect((await gitCli(['ls-tree', '-r', root], gitdir)).trim().split('\n')).toEqual(
      oids.map((oid, i) => `100644 blob ${oid}\tdir/blob-${i}`),
    );
    for (const [i, bytes] of blobs.entries()) {
      const file = path.join(work, `blob-${i}`);
      await writeFile(file, bytes);
      expect(oids[i]).toBe((await gitCli(['hash-object', file], work)).trim());
      expect(Buffer.from((await git.readBlob({ fs, gitdir, oid: oids[i]! })).blob).equals(bytes)).toBe(true);
    }
    // git reads the new pack too, and its .idx is the one git index-pack would write.
    await gitCli(['fsck', '--strict', '--no-dangling'], gitdir);
    for (const pack of await packFiles(gitdir)) {
      const idx = await readFile(pack.replace(/\.pack$/, '.idx'));
      const check = path.join(work, `check-${path.basename(pack)}`);
      await copyFile(pack, check);
      await gitCli(['index-pack', check], work);
      expect(idx.equals(await readFile(check.replace(/\.pack$/, '.idx')))).toBe(true);
    }
  });

  it('writes trees as one pack in the order git sorts them, with the ids git and isomorphic-git give', async () => {
    // Names whose order differs between a plain and git's comparison (a tree sorts as `name/`),
    // every mode, and a non-ASCII name.
    const blob = objectId('blob', Buffer.from('x\n')); // trees only name their entries
    const files = new Map<string, { oid: string; mode: string }>([
      ['a.b', { oid: blob, mode: '100644' }],
      ['a/c.md', { oid: blob, mode: '100644' }],
      ['a-b', { oid: blob, mode: '100755' }],
      ['a0/x', { oid: blob, mode: '100644' }],
      ['link', { oid: blob, mode: '120000' }],
      ['mod', { oid: blob, mode: '160000' }],
      ['Über/ß.md', { oid: blob, mode: '100644' }],
      ['z/y/x/w.md', { oid: blob, mode: '100644' }],
    ]);
    const { gitdir, root } = await open('trees', async (repo) => ({
      gitdir: repo.gitdir,
      root: await repo.writeFilesAndTree(files, [], async () => null),
    }));
    // isomorphic-git writes the same trees (loose) with the same ids.
    const write = async (prefix: string): Promise<string> => {
      const names = new Map<string, { oid: string; mode: string; type: 'blob' | 'tree' | 'commit' }>();
      for (const [p, e] of files) {
        if (!p.startsWith(prefix)) continue;
        const [head, ...rest] = p.slice(prefix.length).split('/');
        if (rest.length) names.set(head!, { oid: await write(`${prefix}${head}/`), mode: '040000', type: 'tree' });
        else names.set(head!, { ...e, type: e.mode === '160000' ? 'commit' : 'blob' });
      }
      const tree = [...names].map(([name, e]) => ({ path: name, ...e }));
      return git.writeTree({ fs, gitdir: path.join(work, 'iso.git'), tree });
    };
    await git.init({ fs, gitdir: path.join(work, 'iso.git'), bare: true });
    expect(root).toBe(await write(''));
    // git reads them from the pack, lists them in its order, and finds nothing wrong.
    const listing = await gitCli(['ls-tree', '-r', '-t', '--full-tree', root], gitdir);
    expect(
      listing
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[1]),
    ).toEqual([
      'a-b',
      'a.b',
      'a',
      'a/c.md',
      'a0',
      'a0/x',
      'link',
      'mod',
      'z',
      'z/y',
      'z/y/x',
      'z/y/x/w.md',
      '"\\303\\234ber"',
      '"\\303\\234ber/\\303\\237.md"',
    ]);
    expect(await readdir(path.join(gitdir, 'objects')).then((d) => d.filter((x) => /^[0-9a-f]{2}$/.test(x)))).toEqual([]);
  });

  it('reports a missing branch as before', async () => {
    await expect(open('missing', (repo) => repo.fetch('refs/heads/nope'))).rejects.toThrow('The remote has no branch "nope"');
  });
});
