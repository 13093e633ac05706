// A loopback OpenAI-compatible chat server (`POST /v1/chat/completions`) that streams a fixed answer
// in chunks the test lets go one at a time (`release`): a test sees what the reader is shown between
// two chunks without waiting on a clock. It records each request and tells when a streamed answer's
// connection closed before its end (the platform stopped asking).
import { serve } from '../../helpers/http.js';

export interface GatedChat {
  url: string;
  requests: { body: any }[];
  /** Lets `n` more chunks go (to the request streaming now, or to the next ones). */
  release(n?: number): void;
  /** Resolves when the next streamed request arrives (its headers are sent, no chunk yet). */
  nextRequest(): Promise<void>;
  /** Resolves when a streamed answer's connection closes before its last chunk. */
  nextCut(): Promise<void>;
  /** Cuts the connections of the answers streaming now (a model that fails mid-answer). */
  breakStreams(): void;
  close(): Promise<void>;
}

export async function startGatedChat(chunks: string[]): Promise<GatedChat> {
  const requests: GatedChat['requests'] = [];
  let permits = 0;
  const waiters: { go(): void; dead: boolean }[] = [];
  const arrived: (() => void)[] = [];
  const cuts: (() => void)[] = [];
  const live = new Set<import('node:http').ServerResponse>();
  const take = (closed: { dead: boolean }) =>
    new Promise<void>((go) => {
      if (permits > 0) {
        permits--;
        go();
      } else waiters.push(Object.assign(closed, { go }));
    });
  const release = (n = 1) => {
    for (let i = 0; i < n; i++) {
      let w;
      while ((w = waiters.shift()) && w.dead);
      if (w) w.go();
      else permits++;
    }
  };
  const srv = await serve((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      requests.push({ body });
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions' || !body.stream) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'this server only streams' }));
        return;
      }
      const state = { dead: false, done: false };
      live.add(res);
      res.on('close', () => {
        live.delete(res);
        state.dead = true;
        if (!state.done) for (const c of cuts.splice(0)) c();
      });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      for (const a of arrived.splice(0)) a();
      for (const content of chunks) {
        await take(state);
        if (state.dead) return;
        res.write(`data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`);
      }
      state.done = true;
      res.end('data: [DONE]\n\n');
    });
  });
  return {
    url: `${srv.url}/v1`,
    requests,
    release,
    nextRequest: () => new Promise<void>((r) => arrived.push(r)),
    nextCut: () => new Promise<void>((r) => cuts.push(r)),
    breakStreams: () => {
      for (const res of live) res.destroy();
    },
    close: srv.close,
  };
}
