// Reading objects out of a git pack file by offset, with positioned reads on an open handle: one
// object (and the bases of its delta chain) in memory at a time, never the whole pack.
import type { FileHandle } from 'node:fs/promises';
import { inflateSync } from 'node:zlib';

export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';
export interface GitObject {
  type: ObjectType;
  data: Buffer;
}

const TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
export const OFS_DELTA = 6;
export const REF_DELTA = 7;

export class PackFormatError extends Error {}

/** The header of the object at some offset: its type number, (inflated) size, and where its zlib data starts. */
export interface ObjectHeader {
  kind: number;
  size: number;
  dataStart: number;
  /** Ofs-delta: offset of the base object. */
  baseOffset?: number;
  /** Ref-delta: oid of the base object. */
  baseOid?: string;
}

/** Parse an object header from `buf`, which holds the pack's bytes from `offset` on (at least 40 bytes, or to the end). */
export function parseHeader(buf: Buffer, offset: number): ObjectHeader {
  let i = 0;
  let b = byteAt(buf, i++);
  const kind = (b >> 4) & 7;
  let size = b & 15;
  let mult = 16;
  while (b & 0x80) {
    b = byteAt(buf, i++);
    size += (b & 0x7f) * mult;
    mult *= 128;
  }
  if (kind === OFS_DELTA) {
    b = byteAt(buf, i++);
    let back = b & 0x7f;
    while (b & 0x80) {
      b = byteAt(buf, i++);
      back = (back + 1) * 128 + (b & 0x7f);
    }
    if (back <= 0 || back > offset) throw new PackFormatError(`bad delta base offset at ${offset}`);
    return { kind, size, dataStart: offset + i, baseOffset: offset - back };
  }
  if (kind === REF_DELTA) {
    if (buf.length < i + 20) throw new PackFormatError(`truncated object header at ${offset}`);
    return { kind, size, dataStart: offset + i + 20, baseOid: buf.subarray(i, i + 20).toString('hex') };
  }
  if (!TYPES[kind]) throw new PackFormatError(`unknown object type ${kind} at ${offset}`);
  return { kind, size, dataStart: offset + i };
}

function byteAt(buf: Buffer, i: number): number {
  if (i >= buf.length) throw new PackFormatError('truncated object header');
  return buf[i]!;
}

export function typeName(kind: number): ObjectType {
  const t = TYPES[kind];
  if (!t) throw new PackFormatError(`unknown object type ${kind}`);
  return t;
}

/** Apply a git delta (copy/insert instructions) to its base. */
export function applyDelta(base: Buffer, delta: Buffer): Buffer {
  let i = 0;
  const varint = () => {
    let n = 0;
    let mult = 1;
    let b;
    do {
      b = delta[i++]!;
      n += (b & 0x7f) * mult;
      mult *= 128;
    } while (b & 0x80);
    return n;
  };
  const baseSize = varint();
  if (baseSize !== base.length) throw new PackFormatError(`delta base size ${baseSize} is not ${base.length}`);
  const out = Buffer.allocUnsafe(varint());
  let o = 0;
  while (i < delta.length) {
    const op = delta[i++]!;
    if (op & 0x80) {
      let off = 0;
      let len = 0;
      for (let k = 0; k < 4; k++) if (op & (1 << k)) off += delta[i++]! * 2 ** (8 * k);
      for (let k = 0; k < 3; k++) if (op & (1 << (4 + k))) len += delta[i++]! * 2 ** (8 * k);
      if (len === 0) len = 0x10000;
      if (off + len > base.length || o + len > out.length) throw new PackFormatError('delta copies out of range');
      base.copy(out, o, off, off + len);
      o += len;
    } else if (op) {
      if (o + op > out.length || i + op > delta.length) throw new PackFormatError('delta inserts out of range');
      delta.copy(out, o, i, i + op);
      i += op;
      o += op;
    } else {
      throw new PackFormatError('delta opcode 0');
    }
  }
  if (o !== out.length) throw new PackFormatError('delta result has the wrong size');
  return out;
}

/** Bytes of a pack read at once for small reads (PackReader.bytes). */
const WINDOW = 256 * 1024;

/** Resolved objects kept for delta chains: at most `maxBytes` in all, least recently used dropped first. */
export class BaseCache {
  private readonly map = new Map<number, GitObject>();
  private bytes = 0;
  constructor(private readonly maxBytes: number) {}

  get(offset: number): GitObject | undefined {
    const hit = this.map.get(offset);
    if (hit) {
      this.map.delete(offset);
      this.map.set(offset, hit);
    }
    return hit;
  }

  set(offset: number, obj: GitObject): void {
    if (obj.data.length > this.maxBytes / 4 || this.map.has(offset)) return;
    this.map.set(offset, obj);
    this.bytes += obj.data.length;
    for (const [k, v] of this.map) {
      if (this.bytes <= this.maxBytes) break;
      this.map.delete(k);
      this.bytes -= v.data.length;
    }
  }
}

/**
 * Objects of one pack read by offset. `ends` are the sorted start offsets of every object plus the
 * offset of the trailing checksum (so each object's extent is known without inflating to find it);
 * `lookup` finds a ref-delta's base by oid.
 */
export class PackReader {
  private readonly cache: BaseCache;

  constructor(
    private readonly fh: FileHandle,
    private readonly ends: number[],
    private readonly lookup: (oid: string) => number | undefined,
    cacheBytes = 16 * 1024 * 1024,
  ) {
    this.cache = new BaseCache(cacheBytes);
  }

  private extent(offset: number): number {
    let lo = 0;
    let hi = this.ends.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.ends[mid]! <= offset) lo = mid + 1;
      else hi = mid - 1;
    }
    const end = this.ends[lo];
    if (end === undefined || this.ends[lo - 1] !== offset) throw new PackFormatError(`no object starts at ${offset}`);
    return end;
  }

  /**
   * `length` bytes at `position`. A read a little after the previous one (a scan in storage order,
   * see ObjectStore.storageOrder) reads a window of WINDOW bytes ahead, which serves the next small
   * reads; any other read reads just what it asks for.
   */
  private async bytes(position: number, length: number): Promise<Buffer> {
    const w = this.window;
    if (position >= w.start && position + length <= w.start + w.buf.length) {
      return w.buf.subarray(position - w.start, position - w.start + length);
    }
    const packEnd = this.ends[this.ends.length - 1]!;
    const sequential = position >= this.lastEnd && position - this.lastEnd <= WINDOW;
    const span = sequential && length < WINDOW ? Math.max(length, Math.min(WINDOW, packEnd - position)) : length;
    const buf = Buffer.allocUnsafe(span);
    const { bytesRead } = await this.fh.read(buf, 0, span, position);
    const got = bytesRead === span ? buf : buf.subarray(0, bytesRead);
    if (span > length) this.window = { start: position, buf: got };
    this.lastEnd = position + length;
    return got.subarray(0, Math.min(length, got.length));
  }

  private window: { start: number; buf: Buffer } = { start: 0, buf: Buffer.alloc(0) };
  /** Where the last read that missed the window ended (-1: none yet). */
  private lastEnd = -1;

  /** The raw (inflated, undeltified) data at `offset` and its header. */
  private async raw(offset: number): Promise<{ header: ObjectHeader; data: Buffer }> {
    const end = this.extent(offset);
    const entry = await this.bytes(offset, end - offset); // header and zlib bytes in one read
    const header = parseHeader(entry.subarray(0, 48), offset);
    const data = inflateSync(entry.subarray(header.dataStart - offset));
    if (data.length !== header.size) throw new PackFormatError(`object at ${offset} has the wrong size`);
    return { header, data };
  }

  /**
   * The object at `offset` as stored: its type, inflated size and zlib bytes, when it is a whole
   * object (a delta gives null): what a pack sent elsewhere can hold as it is, without inflating.
   */
  async stored(offset: number): Promise<{ type: ObjectType; size: number; zlib: Buffer } | null> {
    const end = this.extent(offset);
    // One read of the whole entry (header and zlib bytes): a delta's is read for nothing, but whole
    // objects, the common case, take one read instead of two.
    const entry = await this.bytes(offset, end - offset);
    const header = parseHeader(entry.subarray(0, 48), offset);
    if (header.kind === OFS_DELTA || header.kind === REF_DELTA) return null;
    return { type: typeName(header.kind), size: header.size, zlib: entry.subarray(header.dataStart - offset) };
  }

  /** The object at `offset`, its delta chain resolved (bases read from the pack, recently used ones cached). */
  async read(offset: number): Promise<GitObject> {
    const chain: { offset: number; delta: Buffer }[] = [];
    let at = offset;
    let base: GitObject | undefined;
    while (!(base = this.cache.get(at))) {
      if (chain.length > 10_000) throw new PackFormatError('delta chain too long');
      const { header, data } = await this.raw(at);
      if (header.kind !== OFS_DELTA && header.kind !== REF_DELTA) {
        base = { type: typeName(header.kind), data };
        if (chain.length) this.cache.set(at, base);
        break;
      }
      chain.push({ offset: at, delta: data });
      if (header.kind === OFS_DELTA) at = header.baseOffset!;
      else {
        const next = this.lookup(header.baseOid!);
        if (next === undefined) throw new PackFormatError(`delta base ${header.baseOid} is not in the pack`);
        at = next;
      }
    }
    let obj = base;
    for (let k = chain.length - 1; k >= 0; k--) {
      obj = { type: obj.type, data: applyDelta(obj.data, chain[k]!.delta) };
      if (k > 0) this.cache.set(chain[k]!.offset, obj);
    }
    return obj;
  }
}
