// The reader's Ask box streamed (`…/~site/ask/stream?q=`, Server-Sent Events) with the `openai`
// back-end pointed at a loopback chat server that sends its answer one chunk at a time, each let go by
// the test: the reader's events grow with the model's words (sanitized HTML, as the JSON endpoint
// renders it), the last one holds the sources; the JSON endpoint's access rules apply; a reader who
// goes away stops the model's answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { docsSite, type DocsSite } from '../reader/helpers.js';
import { HIDDEN_WORD, quotaSite } from './helpers.js';
import { startGatedChat, type GatedChat } from './gated-chat.js';

// Each chunk is longer than the 60 characters the back-end waits for before passing the answer on.
const CHUNKS = [
  'Every token may send 100 requests per minute <b>before</b> the API pushes back. ',
  'Past that quota the API answers 429 with a Retry-After header saying when to retry. ',
  'Wait that many seconds, then send the request again, as the Quotas page explains [1].',
];

let chat: GatedChat;
beforeAll(async () => {
  chat = await startGatedChat(CHUNKS);
});
afterAll(async () => {
  await chat?.close();
});
// The answer's own time limit far past the test's: only the reader going away can stop an answer here.
const { t } = useTestApp(() => ({
  env: {
    ASK_PROVIDER: 'openai',
    ASK_OPENAI_URL: chat.url,
    ASK_OPENAI_KEY: 'sk-test',
    ASK_ALLOW_PRIVATE: 'true',
    ASK_TIMEOUT_MS: '3600000',
  },
}));

let d: DocsSite;
beforeAll(async () => {
  d = await quotaSite(t);
}, 120_000);

interface SseEvent {
  event: string;
  data: any;
}

/** Reads a response's Server-Sent Events one at a time, as they arrive. */
function events(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return async function next(): Promise<SseEvent | null> {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const lines = block.split('\n');
        const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
        if (!data.length) continue; // a comment
        const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
        return { event, data: JSON.parse(data.join('\n')) };
      }
      const { value, done } = await reader.read();
      if (done) return null;
      buffer += decoder.decode(value, { stream: true });
    }
  };
}

const streamUrl = (base: string, q: string) => `${t.baseUrl}${base}/~site/ask/stream?q=${encodeURIComponent(q)}`;

describe("the reader's streamed Ask", () => {
  it('passes the answer on as the model writes it, then the whole answer with its sources', async () => {
    const before = chat.requests.length;
    const res = await fetch(streamUrl(d.base, 'What is the quota per minute?'), { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const next = events(res);

    // No chunk is sent yet: each event below is the answer after one more chunk of the model's.
    const seen: string[] = [];
    for (let i = 0; i < CHUNKS.length - 1; i++) {
      chat.release();
      const ev = await next();
      expect(ev?.event).toBe('answer');
      expect(Object.keys(ev!.data)).toEqual(['html']);
      seen.push(ev!.data.html);
    }
    expect(seen[0]).toContain('100 requests per minute &lt;b&gt;before&lt;/b&gt;');
    expect(seen[0]).not.toContain('429');
    expect(seen[1]).toContain('429 with a Retry-After header');
    expect(seen[1]).not.toContain('send the request again');
    expect(seen[1].startsWith(seen[0].replace(/<\/p>$/, ''))).toBe(true);

    // The last chunk: maybe one more step, then the whole answer, its citation a link, and the sources.
    chat.release();
    let ev = await next();
    while (ev?.event === 'answer') ev = await next();
    expect(ev?.event).toBe('done');
    const quotas = `${t.baseUrl}${d.base}/api/quotas`;
    expect(ev!.data.question).toBe('What is the quota per minute?');
    expect(ev!.data.sources).toEqual([{ title: 'Quotas', url: quotas, section: 'API' }]);
    expect(ev!.data.html).toContain('send the request again');
    expect(ev!.data.html).toContain(`<a href="${quotas}">[1]</a>`);
    expect(ev!.data.html).toContain(`<p>Sources:</p><ol><li><a href="${quotas}">Quotas</a></li></ol>`);
    expect(ev!.data.html).not.toContain('<b>');
    expect(await next()).toBeNull();
    // One question, one request to the model (no second engine behind the stream).
    expect(chat.requests.length - before).toBe(1);
    expect(JSON.stringify(chat.requests.at(-1)!.body)).not.toContain(HIDDEN_WORD);
  });

  it('the JSON endpoint gives the same answer whole', async () => {
    chat.release(CHUNKS.length);
    const r = await t.api('GET', `${d.base}/~site/ask?q=${encodeURIComponent('What is the quota per minute?')}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.html).toContain('send the request again');
    expect(r.body.sources).toEqual([{ title: 'Quotas', url: `${t.baseUrl}${d.base}/api/quotas`, section: 'API' }]);
  });

  it('bounds the question to 512 characters, as the JSON endpoint does', async () => {
    chat.release(CHUNKS.length);
    const res = await fetch(streamUrl(d.base, `quota per minute ${'x'.repeat(600)}`));
    const next = events(res);
    let ev = await next();
    while (ev?.event === 'answer') ev = await next();
    expect(ev?.event).toBe('done');
    expect(ev!.data.question).toHaveLength(512);
  });

  it("follows the JSON endpoint's rules: the ai.mode gate, the visitor's token, an empty question", async () => {
    const before = chat.requests.length;
    const plain = await docsSite(t, await t.seedOrg());
    expect((await fetch(streamUrl(plain.base, 'quota'))).status).toBe(404);
    const empty = await fetch(streamUrl(d.base, '   '));
    expect(empty.status).toBe(400);
    expect((await empty.json()).error.code).toBe(400);
    const closed = await quotaSite(t, 'visitor-auth');
    const refused = await fetch(streamUrl(closed.base, 'quota'));
    expect(refused.status).toBe(401);
    expect(await refused.text()).not.toContain('100 requests');
    expect(chat.requests.length).toBe(before);
  });

  it('a model failing mid-answer ends the stream with an error event, after what was shown', async () => {
    const res = await fetch(streamUrl(d.base, 'What is the quota per minute?'));
    chat.release();
    const next = events(res);
    expect((await next())?.event).toBe('answer');
    chat.breakStreams();
    const ev = await next();
    expect(ev?.event).toBe('error');
    expect(ev!.data.error.code).toBe(502);
    expect(ev!.data.error.message).not.toContain('sk-test');
    expect(await next()).toBeNull();
  });

  it("a reader who goes away stops the model's answer", async () => {
    const arrived = chat.nextRequest();
    const cut = chat.nextCut();
    const abort = new AbortController();
    const res = await fetch(streamUrl(d.base, 'What is the quota per minute?'), { signal: abort.signal });
    expect(res.status).toBe(200);
    await arrived;
    chat.release();
    const next = events(res);
    expect((await next())?.event).toBe('answer');
    abort.abort();
    // The platform closes its request to the model before the model's last chunk.
    await cut;
  });
});
