// A smart-HTTP (protocol v0/v1) upload-pack request for one commit, the pack written to a file as
// it arrives (never held in memory). No `thin-pack` capability is asked for, so every delta's base
// is in the same pack and the pack indexes on its own.
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import git from 'isomorphic-git';
import type { HttpClient } from 'isomorphic-git';
import { indexPack, type KeepOptions } from './index.js';
import type { GitObject } from './read.js';

export class RemotePackError extends Error {}

export function pkt(line: string): Buffer {
  const body = Buffer.from(line, 'utf8');
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0'), 'latin1'), body]);
}

/** The pkt-lines of a response body: each payload, or null for a flush packet. */
export async function* pktLines(body: AsyncIterable<Uint8Array>): AsyncGenerator<Buffer | null> {
  let buf = Buffer.alloc(0);
  for await (const chunk of body) {
    buf = buf.length ? Buffer.concat([buf, chunk]) : Buffer.from(chunk);
    let at = 0;
    while (buf.length - at >= 4) {
      const len = parseInt(buf.toString('latin1', at, at + 4), 16);
      if (Number.isNaN(len) || (len > 0 && len < 4)) throw new RemotePackError('the server sent a malformed response');
      if (len === 0) {
        yield null;
        at += 4;
        continue;
      }
      if (buf.length - at < len) break;
      yield buf.subarray(at + 4, at + len);
      at += len;
    }
    buf = buf.subarray(at);
  }
  if (buf.length) throw new RemotePackError('the server response ended in the middle of a packet');
}

export interface FetchPackOptions {
  http: HttpClient;
  url: string;
  headers: Record<string, string>;
  want: string;
  haves: string[];
  capabilities: string[];
  /** Where the pack goes. */
  file: string;
}

/** Ask the server for `want` (minus what `haves` reach) and write the pack it sends to `file`; returns its size in bytes. */
export async function fetchPack(o: FetchPackOptions): Promise<number> {
  const band = o.capabilities.includes('side-band-64k') ? 'side-band-64k' : o.capabilities.includes('side-band') ? 'side-band' : '';
  const caps = [band, o.capabilities.includes('ofs-delta') ? 'ofs-delta' : '', o.capabilities.includes('no-progress') ? 'no-progress' : '']
    .filter(Boolean)
    .join(' ');
  const body = Buffer.concat([
    pkt(`want ${o.want}${caps ? ` ${caps}` : ''}\n`),
    Buffer.from('0000'),
    ...o.haves.map((h) => pkt(`have ${h}\n`)),
    pkt('done\n'),
  ]);
  const res = await o.http.request({
    url: `${o.url.replace(/\/+$/, '')}/git-upload-pack`,
    method: 'POST',
    headers: {
      ...o.headers,
      'content-type': 'application/x-git-upload-pack-request',
      accept: 'application/x-git-upload-pack-result',
      'user-agent': 'git/docsplatform',
    },
    body: (async function* () {
      yield body;
    })(),
  });
  if (res.statusCode !== 200) {
    throw new git.Errors.HttpError(res.statusCode, res.statusMessage, '');
  }
  if (!res.body) throw new git.Errors.EmptyServerResponseError();
  const fh = await open(o.file, 'w');
  let written = 0;
  const write = async (data: Buffer) => {
    await fh.write(data, 0, data.length);
    written += data.length;
  };
  try {
    if (!band) await rawPack(res.body, write);
    else await sideBandPack(res.body, write);
  } finally {
    await fh.close();
  }
  if (written === 0) throw new RemotePackError('the server sent no pack');
  return written;
}

/**
 * Fetch the pack for `want` into `gitdir`/objects/pack: downloaded under a temporary name, indexed
 * and verified from disk, then named after its checksum beside its .idx (the .idx last: a pack is
 * only seen once it has one).
 */
export async function receivePack(gitdir: string, o: Omit<FetchPackOptions, 'file'>, keep?: KeepOptions): Promise<Map<string, GitObject>> {
  const dir = path.join(gitdir, 'objects', 'pack');
  await mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `tmp-${randomBytes(8).toString('hex')}`);
  try {
    await fetchPack({ ...o, file: `${tmp}.pack` });
    const { checksum, idx, kept } = await indexPack(`${tmp}.pack`, keep);
    await writeFile(`${tmp}.idx`, idx);
    await rename(`${tmp}.pack`, path.join(dir, `pack-${checksum}.pack`));
    await rename(`${tmp}.idx`, path.join(dir, `pack-${checksum}.idx`));
    return kept;
  } finally {
    await rm(`${tmp}.pack`, { force: true });
    await rm(`${tmp}.idx`, { force: true });
  }
}

/** Acknowledgement lines (NAK / ACK) come first; then side-band packets: 1 pack data, 2 progress, 3 error. */
async function sideBandPack(body: AsyncIterable<Uint8Array>, write: (b: Buffer) => Promise<void>) {
  for await (const line of pktLines(body)) {
    if (line === null || line.length === 0) continue;
    const channel = line[0];
    if (channel === 1) await write(line.subarray(1));
    else if (channel === 3) throw new RemotePackError(`the server reported an error: ${line.subarray(1).toString('utf8').trim()}`);
    else if (channel !== 2) {
      const text = line.toString('utf8');
      if (text.startsWith('ERR ')) throw new RemotePackError(`the server refused the fetch: ${text.slice(4).trim()}`);
      if (!/^(NAK|ACK |shallow |unshallow )/.test(text)) throw new RemotePackError('the server sent a malformed response');
    }
  }
}

/** Without side-band: one NAK / ACK line, then the bare pack to the end of the response. */
async function rawPack(body: AsyncIterable<Uint8Array>, write: (b: Buffer) => Promise<void>) {
  let buf = Buffer.alloc(0);
  let inPack = false;
  for await (const chunk of body) {
    if (inPack) {
      await write(Buffer.from(chunk));
      continue;
    }
    buf = Buffer.concat([buf, chunk]);
    while (!inPack && buf.length >= 4) {
      if (buf.toString('latin1', 0, 4) === 'PACK') {
        inPack = true;
        await write(buf);
        break;
      }
      const len = parseInt(buf.toString('latin1', 0, 4), 16);
      if (Number.isNaN(len)) throw new RemotePackError('the server sent a malformed response');
      if (len === 0) {
        buf = buf.subarray(4);
        continue;
      }
      if (buf.length < len) break;
      const text = buf.toString('utf8', 4, len);
      if (text.startsWith('ERR ')) throw new RemotePackError(`the server refused the fetch: ${text.slice(4).trim()}`);
      buf = buf.subarray(len);
    }
  }
}
