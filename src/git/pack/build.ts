// Writing many objects as one pack (an export's blobs, then its trees) instead of one loose file
// each: entries are appended to a temporary pack file with native zlib as they come (in 1 MB
// writes), then the header's count and the trailing checksum are written, the .idx made, and both
// renamed into objects/pack (the .idx last: a pack is only seen once it has one). Memory: one
// object at a time, and up to 1 MB of entries not written yet.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { objectHeader } from './push.js';
import { objectId, writeIndex } from './index.js';
import type { ObjectType } from './read.js';

/** Pack bytes gathered before one write to the file. */
const WRITE_CHUNK = 1 << 20;

/** Bytes a blob starts with that are tried with fast compression: if they do not shrink, the blob is stored. */
const PROBE_BYTES = 4096;

/**
 * The zlib stream of an object. Already-compressed content (images, archives: most of a space's
 * files) does not shrink under deflate, which costs 15x a stored copy on such bytes: when its first
 * PROBE_BYTES do not shrink by 5% with the fastest level, it is written stored (level 0, still a
 * zlib stream any git reads). Everything else gets zlib's default level, as git writes.
 */
function deflated(data: Buffer): Buffer {
  if (data.length >= PROBE_BYTES * 2) {
    const probe = deflateSync(data.subarray(0, PROBE_BYTES), { level: 1 });
    if (probe.length > PROBE_BYTES * 0.95) return deflateSync(data, { level: 0 });
  }
  return deflateSync(data);
}

export class PackBuilder {
  private readonly entries: { oid: string; offset: number; crc: number }[] = [];
  private readonly oids = new Set<string>();
  private offset = 12;
  private closed = false;
  /** Entries not written yet: small objects go to the file in WRITE_CHUNK slices, not one write each. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  private constructor(
    private readonly dir: string,
    private readonly tmp: string,
    private readonly fh: FileHandle,
  ) {}

  /** A new pack in `gitdir`/objects/pack, finished by `finish` or dropped by `abort`. */
  static async create(gitdir: string): Promise<PackBuilder> {
    const dir = path.join(gitdir, 'objects', 'pack');
    await mkdir(dir, { recursive: true });
    const tmp = path.join(dir, `tmp-build-${randomBytes(8).toString('hex')}`);
    const fh = await open(`${tmp}.pack`, 'w');
    await fh.write(Buffer.alloc(12), 0, 12, 0); // header, written by finish
    return new PackBuilder(dir, tmp, fh);
  }

  /** Append an object unless this pack has it already; returns its id (`oid` when the caller computed it). */
  async add(type: ObjectType, data: Buffer, oid = objectId(type, data)): Promise<string> {
    if (this.oids.has(oid)) return oid;
    const entry = Buffer.concat([objectHeader(type, data.length), deflated(data)]);
    this.entries.push({ oid, offset: this.offset, crc: crc32(entry) });
    this.oids.add(oid);
    this.offset += entry.length;
    this.pending.push(entry);
    this.pendingBytes += entry.length;
    if (this.pendingBytes >= WRITE_CHUNK) await this.flush();
    return oid;
  }

  /** Write the entries gathered since the last flush, where they belong (after those before them). */
  private async flush(): Promise<void> {
    if (!this.pendingBytes) return;
    const buf = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    const at = this.offset - this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
    await this.fh.write(buf, 0, buf.length, at);
  }

  get size(): number {
    return this.entries.length;
  }

  /** Write the count and checksum, index it, and make it visible; nothing when it holds no object. */
  async finish(): Promise<void> {
    if (!this.entries.length) return this.abort();
    try {
      await this.flush();
      const head = Buffer.alloc(12);
      head.write('PACK', 0, 'latin1');
      head.writeUInt32BE(2, 4);
      head.writeUInt32BE(this.entries.length, 8);
      await this.fh.write(head, 0, 12, 0);
      const hash = createHash('sha1');
      for await (const chunk of createReadStream(`${this.tmp}.pack`, { start: 0, end: this.offset - 1 })) hash.update(chunk as Buffer);
      const checksum = hash.digest();
      await this.fh.write(checksum, 0, 20, this.offset);
      await this.fh.close();
      this.closed = true;
      const sum = checksum.toString('hex');
      await writeFile(`${this.tmp}.idx`, writeIndex(this.entries, sum));
      await rename(`${this.tmp}.pack`, path.join(this.dir, `pack-${sum}.pack`));
      await rename(`${this.tmp}.idx`, path.join(this.dir, `pack-${sum}.idx`));
    } catch (err) {
      await this.abort();
      throw err;
    }
  }

  async abort(): Promise<void> {
    if (!this.closed) await this.fh.close().catch(() => {});
    this.closed = true;
    await rm(`${this.tmp}.pack`, { force: true });
    await rm(`${this.tmp}.idx`, { force: true });
  }
}
