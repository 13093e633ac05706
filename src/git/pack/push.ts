// A smart-HTTP (protocol v0/v1) receive-pack request updating one ref: the command, then a pack
// of the objects the remote lacks (native zlib, no deltas) sent while it is made, a chunk at a
// time, so memory does not grow with the repository; the server's report-status says whether the
// ref moved.
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import git from 'isomorphic-git';
import type { HttpClient } from 'isomorphic-git';
import { RemotePackError, pkt, pktLines } from './fetch.js';
import type { GitObject, ObjectType } from './read.js';

const TYPE_NUMBERS: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };
const ZERO_OID = '0'.repeat(40);
/** Pack bytes gathered before one chunk is sent. */
const WRITE_CHUNK = 1 << 20;

/** The remote took the objects but refused to move the ref (`ng <ref> <reason>`), or could not unpack them. */
export class PushRefusedError extends Error {
  constructor(readonly reason: string) {
    super(`The remote refused the push: ${reason}`);
  }
}

/** A pack object header: type and inflated size, 4 + 7·k bits. */
export function objectHeader(type: ObjectType, size: number): Buffer {
  const bytes: number[] = [];
  let b = (TYPE_NUMBERS[type] << 4) | (size & 15);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(b | 0x80);
    b = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(b);
  return Buffer.from(bytes);
}

/** How a packed whole object is stored (its zlib bytes as they are), or null to read and deflate it. */
export type StoredObject = (oid: string) => Promise<{ type: ObjectType; size: number; zlib: Buffer } | null>;

/**
 * A version-2 pack of `oids`, as it is made, in chunks of about WRITE_CHUNK bytes: an object
 * another pack holds whole is copied as it is stored (`stored`), others are read with `read` and
 * deflated. The count is known first and the checksum computed on the way, so nothing waits for
 * the whole pack (a push sends it while it is made, as git does).
 */
export async function* packChunks(
  oids: string[],
  read: (oid: string) => Promise<GitObject | null>,
  stored: StoredObject = async () => null,
): AsyncGenerator<Buffer> {
  const hash = createHash('sha1');
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const put = (buf: Buffer) => {
    hash.update(buf);
    pending.push(buf);
    pendingBytes += buf.length;
  };
  const take = () => {
    const buf = Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    return buf;
  };
  const head = Buffer.alloc(12);
  head.write('PACK', 0, 'latin1');
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(oids.length, 8);
  put(head);
  for (const oid of oids) {
    const as = await stored(oid);
    if (as) {
      put(objectHeader(as.type, as.size));
      put(as.zlib);
    } else {
      const obj = await read(oid);
      if (!obj) throw new RemotePackError(`object ${oid} is missing from the local repository`);
      put(objectHeader(obj.type, obj.data.length));
      put(deflateSync(obj.data));
    }
    if (pendingBytes >= WRITE_CHUNK) yield take();
  }
  pending.push(hash.digest());
  pendingBytes += 20;
  yield take();
}

export interface PushPackOptions {
  http: HttpClient;
  url: string;
  headers: Record<string, string>;
  /** The remote's current value of `ref` (null: the ref does not exist there). */
  oldOid: string | null;
  newOid: string;
  ref: string;
  /** Capabilities the remote advertised for receive-pack. */
  capabilities: string[];
  /** The objects to send (the remote lacks them), any order. */
  oids: string[];
  read: (oid: string) => Promise<GitObject | null>;
  /** Packed whole objects, copied as they are stored. */
  stored?: StoredObject;
}

/**
 * Send the objects and the ref update; throws PushRefusedError when the remote refuses it. The
 * pack goes out while it is made (chunked: its length is not known before), so the remote indexes
 * it meanwhile; an object that cannot be read cuts the request, and the remote keeps nothing of it.
 */
export async function pushPack(o: PushPackOptions): Promise<void> {
  const caps = ['report-status', 'side-band-64k'].filter((c) => o.capabilities.includes(c));
  const band = caps.includes('side-band-64k');
  const command = Buffer.concat([
    pkt(`${o.oldOid ?? ZERO_OID} ${o.newOid} ${o.ref}\0${[...caps, 'agent=git/docsplatform'].join(' ')}\n`),
    Buffer.from('0000'),
  ]);
  const pack = packChunks(o.oids, o.read, o.stored);
  // Whatever the remote or the connection then says (a cut request, an unpack error), a pack that
  // could not be made is the reason the push failed.
  let packError: { error: unknown } | undefined;
  const body = async function* () {
    yield command;
    try {
      yield* pack;
    } catch (error) {
      packError = { error };
      throw error;
    }
  };
  try {
    const res = await o.http.request({
      url: `${o.url.replace(/\/+$/, '')}/git-receive-pack`,
      method: 'POST',
      headers: {
        ...o.headers,
        'content-type': 'application/x-git-receive-pack-request',
        accept: 'application/x-git-receive-pack-result',
        'user-agent': 'git/docsplatform',
        'transfer-encoding': 'chunked',
      },
      body: body(),
    });
    if (res.statusCode !== 200) throw new git.Errors.HttpError(res.statusCode, res.statusMessage, '');
    if (!res.body) throw new git.Errors.EmptyServerResponseError();
    const report = band ? await sideBandReport(res.body) : res.body;
    if (caps.includes('report-status')) await checkReport(report, o.ref);
    else for await (const chunk of report) void chunk; // drain
  } catch (err) {
    throw packError ? packError.error : err;
  }
}

/** The report-status pkt-lines carried on band 1; band 2 is progress, band 3 a fatal error. */
async function sideBandReport(body: AsyncIterable<Uint8Array>): Promise<AsyncIterable<Uint8Array>> {
  const data: Buffer[] = [];
  for await (const line of pktLines(body)) {
    if (line === null || line.length === 0) continue;
    const channel = line[0];
    if (channel === 1) data.push(line.subarray(1));
    else if (channel === 3) throw new RemotePackError(`the server reported an error: ${line.subarray(1).toString('utf8').trim()}`);
  }
  return (async function* () {
    yield Buffer.concat(data);
  })();
}

/** `unpack ok`, then `ok <ref>` or `ng <ref> <reason>` for our one command. */
async function checkReport(report: AsyncIterable<Uint8Array>, ref: string): Promise<void> {
  let unpacked = false;
  for await (const line of pktLines(report)) {
    if (line === null) break;
    const text = line.toString('utf8').replace(/\n$/, '');
    if (text.startsWith('unpack ')) {
      if (text !== 'unpack ok') throw new PushRefusedError(`the objects could not be stored (${text.slice(7)})`);
      unpacked = true;
    } else if (text === `ok ${ref}`) {
      if (!unpacked) break;
      return;
    } else if (text.startsWith(`ng ${ref} `)) {
      throw new PushRefusedError(text.slice(`ng ${ref} `.length));
    }
  }
  throw new RemotePackError('the server did not report on the ref update');
}
