import { expect } from 'vitest';
import type http from 'node:http';
import type { TestApp } from '../../helpers/app.js';
import { editContent } from '../../helpers/content.js';
import { serve } from '../../helpers/http.js';
import { docsSite, type DocsSite } from '../reader/helpers.js';

/** Words only a reader who may not see a page would find: never in a prompt or an answer. */
export const HIDDEN_WORD = 'Zanzibarhidden';
export const CONDITIONAL_WORD = 'Kilimanjarobeta';

/**
 * The reader helpers' docs site with pages about quotas: a visible one (API section), a hidden one
 * and one in a section shown only to beta readers (adaptive content), all matching "quota"; the
 * customization's `ai.mode` is `search`, so the Ask box shows.
 */
export async function quotaSite(t: TestApp, visibility = 'public'): Promise<DocsSite> {
  const d = await docsSite(t, await t.seedOrg(), visibility);
  await editContent(t, d.spaces.api, (draft) => {
    draft.insertPage(null, {
      title: 'Quotas',
      markdown: 'Every token has a quota of 100 requests per minute. Past the quota the API answers 429 and a Retry-After header.',
    });
    draft.insertPage(null, { title: 'Quota internals', hidden: true, markdown: `The quota secret is ${HIDDEN_WORD}.` });
  });
  await editContent(t, d.spaces.sdk, (draft) => {
    draft.insertPage(null, { title: 'SDK quota', markdown: `The SDK quota for beta readers is ${CONDITIONAL_WORD}.` });
  });
  // Readers' questions are on (GitBook's `ai.mode`; the default `none` shows no Ask box).
  await call(t, d, 'PUT', `/sites/${d.siteId}/customization`, { ai: { mode: 'search', greeting: 'Ask the Acme docs' } });
  await call(t, d, 'PATCH', `/sites/${d.siteId}`, { adaptiveContent: { enabled: true } });
  const sdkSection = (await call(t, d, 'GET', `/sites/${d.siteId}/sections`)).items.find((s: any) => s.title === 'SDKs');
  await call(t, d, 'PATCH', `/sites/${d.siteId}/sections/${sdkSection.id}`, { condition: 'visitor.claims.beta == true' });
  return d;
}

export async function call(t: TestApp, d: DocsSite, method: string, path: string, body?: unknown) {
  const r = await t.api(method, `/v1/orgs/${d.o.orgId}${path}`, { token: d.o.adminToken, body });
  expect(r.status, r.text).toBeLessThan(300);
  return r.body;
}

export interface FakeChat {
  url: string;
  requests: { headers: http.IncomingHttpHeaders; body: any }[];
  close(): Promise<void>;
}

/**
 * A loopback OpenAI-compatible chat server (`POST /v1/chat/completions`): checks the key, records
 * each request, and answers with the first line of the first passage offered, cited as [1] (streamed
 * as server-sent chunks when the request asks for `stream`).
 */
export async function startFakeChat(key: string): Promise<FakeChat> {
  const requests: FakeChat['requests'] = [];
  const srv = await serve((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      requests.push({ headers: req.headers, body });
      const send = (status: number, b: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(b));
      };
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return send(404, { error: 'not found' });
      if (req.headers.authorization !== `Bearer ${key}`) return send(401, { error: 'Invalid API key' });
      const prompt: string = body.messages.at(-1).content;
      const first = /\n\[1\] [^\n]*\n([^\n]*)/.exec(prompt)?.[1];
      const content = first ? `Model says: ${first} [1]` : 'The passages do not say.';
      if (!body.stream)
        return send(200, { id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content } }] });
      // Streamed as OpenAI does: one chunk per few characters, then [DONE].
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < content.length; i += 8) {
        const chunk = {
          id: 'chatcmpl-1',
          object: 'chat.completion.chunk',
          choices: [{ index: 0, delta: { content: content.slice(i, i + 8) } }],
        };
        res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      }
      res.end('data: [DONE]\n\n');
    });
  });
  return { url: `${srv.url}/v1`, requests, close: srv.close };
}
