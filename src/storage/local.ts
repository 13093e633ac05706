import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { checkKey, type BlobStore } from './blobstore.js';

/**
 * No object at this key: the path does not exist, goes through a regular file (ENOTDIR: key
 * "a/b" when object "a" exists), or is a directory (EISDIR: key "a" when only "a/b" exists).
 */
function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR' || code === 'ERR_FS_EISDIR';
}

/** Blobs as files under one folder: the default when no S3 bucket is configured. */
export class LocalBlobStore implements BlobStore {
  readonly driver = 'local' as const;
  private readonly root: string;

  constructor(dir: string) {
    this.root = path.resolve(dir);
  }

  private file(key: string): string {
    return path.join(this.root, checkKey(key));
  }

  async put(key: string, data: Buffer | string): Promise<void> {
    const target = this.file(key);
    await mkdir(path.dirname(target), { recursive: true });
    // Write beside the target then rename: readers never see a partial file.
    const tmp = path.join(this.root, '.tmp');
    await mkdir(tmp, { recursive: true });
    const tmpFile = path.join(tmp, `${randomBytes(8).toString('hex')}`);
    try {
      await writeFile(tmpFile, data);
      await rename(tmpFile, target);
    } finally {
      await rm(tmpFile, { force: true }); // gone after a rename; removed after a failure
    }
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.file(key));
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async head(key: string): Promise<{ size: number } | null> {
    try {
      const s = await stat(this.file(key));
      return s.isFile() ? { size: s.size } : null;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async getStream(key: string) {
    const h = await this.head(key);
    if (!h) return null;
    return { stream: createReadStream(this.file(key)), size: h.size };
  }

  async delete(key: string): Promise<void> {
    try {
      await rm(this.file(key), { force: true });
    } catch (err) {
      // A directory or a path through a file is not an object: nothing to delete (never recurse).
      if (!isMissing(err)) throw err;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    const walk = async (dir: string, rel: string) => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        if (isMissing(err)) return; // no such folder, or the prefix runs through a file
        throw err;
      }
      for (const e of entries) {
        const relPath = rel ? `${rel}/${e.name}` : e.name;
        if (!rel && e.name === '.tmp') continue;
        if (e.isDirectory()) await walk(path.join(dir, e.name), relPath);
        else if (relPath.startsWith(prefix)) out.push(relPath);
      }
    };
    // Start at the deepest folder the prefix names, not at the root of the store.
    const base = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    if (base) checkKey(base);
    await walk(base ? path.join(this.root, base) : this.root, base);
    return out.sort();
  }

  async deletePrefix(prefix: string): Promise<number> {
    const keys = await this.list(prefix);
    await Promise.all(keys.map((k) => this.delete(k)));
    return keys.length;
  }

  async close(): Promise<void> {}
}
