// The objects of a bare repository read without loading packs into memory: loose objects from
// their files, packed ones through each pack's .idx and positioned reads (PackReader).
import fs from 'node:fs';
import { open, readFile, readdir, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { PackIdx } from './index.js';
import { PackReader, type GitObject, type ObjectType } from './read.js';

interface Pack {
  idx: PackIdx;
  fh: FileHandle;
  reader: PackReader;
}

export class ObjectStore {
  private packs: Promise<Pack[]> | null = null;
  /** Objects of the last fetched pack as its indexing inflated them (bounded there), read without inflating again. */
  private received = new Map<string, GitObject>();

  constructor(private readonly gitdir: string) {}

  private async loadPacks(): Promise<Pack[]> {
    const dir = path.join(this.gitdir, 'objects', 'pack');
    let names: string[];
    try {
      names = (await readdir(dir)).filter((n) => n.endsWith('.idx'));
    } catch {
      return [];
    }
    const packs: Pack[] = [];
    for (const name of names) {
      const packPath = path.join(dir, name.replace(/\.idx$/, '.pack'));
      if (!fs.existsSync(packPath)) continue;
      const idx = new PackIdx(await readFile(path.join(dir, name)));
      const fh = await open(packPath, 'r');
      const { size } = await fh.stat();
      const reader = new PackReader(fh, idx.extents(size - 20), (oid) => idx.find(oid));
      packs.push({ idx, fh, reader });
    }
    return packs;
  }

  private async allPacks(): Promise<Pack[]> {
    this.packs ??= this.loadPacks();
    return this.packs;
  }

  /** Forget the packs seen so far (a new one was added) and close their files. */
  async refresh(): Promise<void> {
    const packs = this.packs;
    this.packs = null;
    if (packs) for (const p of await packs.catch(() => [])) await p.fh.close().catch(() => {});
  }

  async close(): Promise<void> {
    this.received = new Map();
    await this.refresh();
  }

  private loosePath(oid: string): string {
    return path.join(this.gitdir, 'objects', oid.slice(0, 2), oid.slice(2));
  }

  /** Where a pack holds `oid` (which pack, its rank among the packs, the offset), or undefined. */
  private async packed(oid: string): Promise<{ pack: Pack; rank: number; offset: number } | undefined> {
    if (!/^[0-9a-f]{40}$/.test(oid)) return undefined;
    const packs = await this.allPacks();
    for (let rank = 0; rank < packs.length; rank++) {
      const offset = packs[rank]!.idx.find(oid);
      if (offset !== undefined) return { pack: packs[rank]!, rank, offset };
    }
    return undefined;
  }

  /** Keep these objects of a pack just fetched (src/git/pack/index.ts `keep`) for the reads that follow. */
  receive(objects: Map<string, GitObject>): void {
    this.received = objects;
  }

  /** The object, or null when this repository does not have it (or `oid` is not an object id). */
  async read(oid: string): Promise<GitObject | null> {
    const known = this.received.get(oid);
    if (known) return known;
    if (!/^[0-9a-f]{40}$/.test(oid)) return null;
    // Packs first: their index is in memory, a loose object costs a file read (or a failed open).
    const at = await this.packed(oid);
    if (at) return at.pack.reader.read(at.offset);
    let loose: Buffer | null;
    try {
      loose = await readFile(this.loosePath(oid));
    } catch {
      loose = null;
    }
    if (loose) {
      const raw = inflateSync(loose);
      const nul = raw.indexOf(0);
      const [type] = raw.toString('latin1', 0, nul).split(' ');
      return { type: type as ObjectType, data: raw.subarray(nul + 1) };
    }
    return null;
  }

  /** A packed whole object's zlib bytes (PackReader.stored), or null (loose, a delta, or absent). */
  async stored(oid: string): Promise<{ type: ObjectType; size: number; zlib: Buffer } | null> {
    const at = await this.packed(oid);
    return at ? at.pack.reader.stored(at.offset) : null;
  }

  /**
   * `oids` in the order they are stored (pack by pack, by offset; loose or absent ones last, in
   * their order): reading many objects in that order turns the pack reads into a sequential scan.
   */
  async storageOrder(oids: string[]): Promise<string[]> {
    const far = { rank: Infinity, offset: Infinity };
    const placed = await Promise.all(oids.map(async (oid, k) => ({ oid, k, at: (await this.packed(oid)) ?? far })));
    return placed.sort((a, b) => a.at.rank - b.at.rank || a.at.offset - b.at.offset || a.k - b.k).map((x) => x.oid);
  }

  /**
   * Whether a pack holds `oid` (no file system call: a loose copy is not looked for). Writers of a
   * new pack ask this: writing an object again that is also loose is harmless, a stat per object is not.
   */
  async hasPacked(oid: string): Promise<boolean> {
    return (await this.packed(oid)) !== undefined;
  }

  async has(oid: string): Promise<boolean> {
    if (!/^[0-9a-f]{40}$/.test(oid)) return false;
    return (await this.hasPacked(oid)) || fs.existsSync(this.loosePath(oid));
  }
}
