// Indexing a pack file from disk (what `git index-pack` does): one pass over the objects with
// positioned reads, each object inflated on its own and, when its base was just seen, each delta
// resolved on the way; the deltas left are resolved afterwards through PackReader. The result is a
// version 2 .idx that isomorphic-git and git read too. Memory: the largest object (and its delta
// bases, at most 16 MB of recent objects kept), plus 28 bytes per object, never the whole pack.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { crc32, inflateSync } from 'node:zlib';
import {
  BaseCache,
  OFS_DELTA,
  PackFormatError,
  PackReader,
  REF_DELTA,
  applyDelta,
  parseHeader,
  typeName,
  type GitObject,
  type ObjectHeader,
} from './read.js';

interface Entry {
  offset: number;
  crc: number;
  oid?: string;
  /** Ref-delta base oid (resolved after the others). */
  baseOid?: string;
}

export function objectId(type: string, data: Buffer): string {
  return createHash('sha1').update(`${type} ${data.length}\0`).update(data).digest('hex');
}

/** SHA-1 of the file's bytes but its last 20, compared with those 20 (the pack's trailing checksum). */
async function verifyTrailer(path: string, size: number): Promise<string> {
  const hash = createHash('sha1');
  for await (const chunk of createReadStream(path, { start: 0, end: size - 21 })) hash.update(chunk as Buffer);
  const fh = await open(path, 'r');
  try {
    const trailer = Buffer.alloc(20);
    await fh.read(trailer, 0, 20, size - 20);
    const actual = hash.digest();
    if (!actual.equals(trailer)) throw new PackFormatError('the pack checksum does not match its content');
    return trailer.toString('hex');
  } finally {
    await fh.close();
  }
}

async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  const { bytesRead } = await fh.read(buf, 0, length, position);
  return buf.subarray(0, bytesRead);
}

/** Resolved objects kept during the scan as bases of the deltas after them. */
const SCAN_CACHE_BYTES = 16 * 1024 * 1024;

/** Bytes read ahead at once while scanning the objects in order (one read per object was most of the time). */
const READ_AHEAD = 1 << 20;

/** Slices of the pack for a scan in file order: one positioned read per READ_AHEAD bytes (or per larger object). */
class SequentialReader {
  private buf: Buffer = Buffer.alloc(0);
  private start = 0;

  constructor(
    private readonly fh: FileHandle,
    private readonly limit: number,
  ) {}

  async slice(offset: number, length: number): Promise<Buffer> {
    const len = Math.min(length, this.limit - offset);
    if (offset < this.start || offset + len > this.start + this.buf.length) {
      this.buf = await readAt(this.fh, offset, Math.min(Math.max(len, READ_AHEAD), this.limit - offset));
      this.start = offset;
    }
    return this.buf.subarray(offset - this.start, offset - this.start + len);
  }
}

/** One object's header, crc and (for whole objects) oid, its inflated data, and where the next one starts. */
async function scanObject(
  fh: SequentialReader,
  offset: number,
  limit: number,
): Promise<{ entry: Entry; end: number; header: ObjectHeader; data: Buffer }> {
  const head = await fh.slice(offset, Math.min(64, limit - offset));
  const h = parseHeader(head, offset);
  // Deflate never grows data by more than a few bytes per 16 KB block: read that much at once,
  // and more only if the stream did not end inside it.
  let want = h.dataStart - offset + h.size + (h.size >> 10) + 64;
  for (;;) {
    const len = Math.min(want, limit - offset);
    const window = await fh.slice(offset, len);
    let inflated: { buffer: Buffer; engine: { bytesWritten: number } };
    try {
      inflated = inflateSync(window.subarray(h.dataStart - offset), { info: true }) as unknown as typeof inflated;
    } catch (err) {
      if ((err as { code?: string }).code === 'Z_BUF_ERROR' && len < limit - offset) {
        want *= 2;
        continue;
      }
      throw new PackFormatError(`object at ${offset} does not inflate: ${(err as Error).message}`);
    }
    const data = inflated.buffer;
    if (data.length !== h.size) throw new PackFormatError(`object at ${offset} has the wrong size`);
    const end = h.dataStart + inflated.engine.bytesWritten;
    const entry: Entry = { offset, crc: crc32(window.subarray(0, end - offset)) };
    if (h.kind === REF_DELTA) entry.baseOid = h.baseOid;
    else if (h.kind !== OFS_DELTA) entry.oid = objectId(typeName(h.kind), data);
    return { entry, end, header: h, data };
  }
}

export interface IndexedPack {
  /** The pack's trailing checksum (hex): git names the pack and its index after it. */
  checksum: string;
  /** A version 2 pack index. */
  idx: Buffer;
  objects: number;
  /** Objects kept as they were inflated (`keep`), by oid. */
  kept: Map<string, GitObject>;
}

/** What indexPack keeps of the objects it inflates anyway: at most `bytes` of them, none larger than `objectBytes`. */
export interface KeepOptions {
  bytes: number;
  objectBytes: number;
}

/**
 * Index the pack at `path`: every object's oid, offset and CRC, deltas resolved within the pack.
 * With `keep`, the objects it inflated are also given back, up to that many bytes: a fetch's
 * caller reads most of them next (an import's pages and images), and need not inflate them again.
 */
export async function indexPack(path: string, keep: KeepOptions = { bytes: 0, objectBytes: 0 }): Promise<IndexedPack> {
  const kept = new Map<string, GitObject>();
  let keptBytes = 0;
  const keepObject = (oid: string, obj: GitObject) => {
    if (obj.data.length > keep.objectBytes || keptBytes + obj.data.length > keep.bytes) return;
    kept.set(oid, obj);
    keptBytes += obj.data.length;
  };
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    if (size < 32) throw new PackFormatError('the pack is truncated');
    const header = await readAt(fh, 0, 12);
    if (header.toString('latin1', 0, 4) !== 'PACK' || ![2, 3].includes(header.readUInt32BE(4))) throw new PackFormatError('not a git pack');
    const count = header.readUInt32BE(8);
    const checksum = await verifyTrailer(path, size);
    const limit = size - 20;
    const entries: Entry[] = [];
    const scan = new SequentialReader(fh, limit);
    // Deltas are resolved during the scan when their base is at hand: an ofs-delta's base comes
    // earlier in the pack, and recently seen objects are kept (bounded) for that. The others wait
    // for the pass below, which reads their chains back from the file.
    const resolved = new BaseCache(SCAN_CACHE_BYTES);
    const byOid = new Map<string, number>();
    let offset = 12;
    for (let i = 0; i < count; i++) {
      if (offset >= limit) throw new PackFormatError('the pack has fewer objects than its header says');
      const { entry, end, header, data } = await scanObject(scan, offset, limit);
      if (entry.oid) {
        const obj = { type: typeName(header.kind), data };
        resolved.set(offset, obj);
        keepObject(entry.oid, obj);
      } else {
        const baseAt = header.kind === OFS_DELTA ? header.baseOffset! : byOid.get(entry.baseOid!);
        const base = baseAt === undefined ? undefined : resolved.get(baseAt);
        if (base) {
          const obj = { type: base.type, data: applyDelta(base.data, data) };
          entry.oid = objectId(obj.type, obj.data);
          resolved.set(offset, obj);
          keepObject(entry.oid, obj);
        }
      }
      if (entry.oid) byOid.set(entry.oid, offset);
      entries.push(entry);
      offset = end;
    }
    if (offset !== limit) throw new PackFormatError('the pack has bytes after its last object');

    const ends = [...entries.map((e) => e.offset), limit];
    const reader = new PackReader(fh, ends, (oid) => byOid.get(oid));
    // Ofs-deltas always resolve; a ref-delta waits until an earlier round has found its base.
    let pending = entries.filter((e) => !e.oid);
    while (pending.length) {
      const next: Entry[] = [];
      for (const e of pending) {
        if (e.baseOid && !byOid.has(e.baseOid)) {
          next.push(e);
          continue;
        }
        const obj = await reader.read(e.offset);
        e.oid = objectId(obj.type, obj.data);
        byOid.set(e.oid, e.offset);
        keepObject(e.oid, obj);
      }
      if (next.length === pending.length) throw new PackFormatError(`delta base ${next[0]!.baseOid} is not in the pack`);
      pending = next;
    }
    return { checksum, idx: writeIndex(entries, checksum), objects: entries.length, kept };
  } finally {
    await fh.close();
  }
}

/** A version 2 .idx: fan-out, sorted oids, CRCs, offsets (large ones in a second table), checksums. */
export function writeIndex(entries: { oid?: string; offset: number; crc: number }[], packChecksum: string): Buffer {
  const sorted = [...entries].sort((a, b) => (a.oid! < b.oid! ? -1 : a.oid! > b.oid! ? 1 : 0));
  const n = sorted.length;
  const large = sorted.filter((e) => e.offset >= 0x80000000);
  const buf = Buffer.alloc(8 + 1024 + n * 28 + large.length * 8 + 40);
  buf.writeUInt32BE(0xff744f63, 0);
  buf.writeUInt32BE(2, 4);
  const fanout = 8;
  const oids = fanout + 1024;
  const crcs = oids + n * 20;
  const offsets = crcs + n * 4;
  const largeAt = offsets + n * 4;
  let li = 0;
  sorted.forEach((e, i) => {
    buf.write(e.oid!, oids + i * 20, 'hex');
    buf.writeUInt32BE(e.crc >>> 0, crcs + i * 4);
    if (e.offset < 0x80000000) buf.writeUInt32BE(e.offset, offsets + i * 4);
    else {
      buf.writeUInt32BE((0x80000000 | li) >>> 0, offsets + i * 4);
      buf.writeBigUInt64BE(BigInt(e.offset), largeAt + li * 8);
      li++;
    }
  });
  let k = 0;
  for (let b = 0; b < 256; b++) {
    while (k < n && parseInt(sorted[k]!.oid!.slice(0, 2), 16) <= b) k++;
    buf.writeUInt32BE(k, fanout + b * 4);
  }
  const end = largeAt + large.length * 8;
  buf.write(packChecksum, end, 'hex');
  createHash('sha1')
    .update(buf.subarray(0, end + 20))
    .digest()
    .copy(buf, end + 20);
  return buf;
}

/** A parsed .idx: oid lookup by binary search and every object's offset. */
export class PackIdx {
  readonly count: number;
  private readonly oids: Buffer;
  private readonly offsets: number[];

  constructor(buf: Buffer) {
    if (buf.readUInt32BE(0) !== 0xff744f63 || buf.readUInt32BE(4) !== 2) throw new PackFormatError('unsupported pack index version');
    this.count = buf.readUInt32BE(8 + 255 * 4);
    const oidsAt = 8 + 1024;
    this.oids = buf.subarray(oidsAt, oidsAt + this.count * 20);
    const offsetsAt = oidsAt + this.count * 24;
    const largeAt = offsetsAt + this.count * 4;
    this.offsets = [];
    for (let i = 0; i < this.count; i++) {
      const v = buf.readUInt32BE(offsetsAt + i * 4);
      this.offsets.push(v & 0x80000000 ? Number(buf.readBigUInt64BE(largeAt + (v & 0x7fffffff) * 8)) : v);
    }
  }

  /** Offset of `oid` in the pack, or undefined. */
  find(oid: string): number | undefined {
    const key = Buffer.from(oid, 'hex');
    if (key.length !== 20) return undefined;
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = this.oids.compare(key, 0, 20, mid * 20, mid * 20 + 20);
      if (c === 0) return this.offsets[mid];
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** Every object's offset, sorted (with `packEnd` appended: the extents PackReader needs). */
  extents(packEnd: number): number[] {
    return [...this.offsets].sort((a, b) => a - b).concat(packEnd);
  }
}
