// Ask through an OpenAI-compatible chat endpoint on loopback (ASK_PROVIDER=openai): the requests it
// receives are checked (the key as a bearer, the question and the readable passages only: no text of
// a hidden page or of a section the reader's claims do not open), the model's [n] citations become
// links to the pages, and the key never reaches a log line or an answer.
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { useTestApp } from '../../helpers/app.js';
import type { DocsSite } from '../reader/helpers.js';
import { call, CONDITIONAL_WORD, HIDDEN_WORD, quotaSite, startFakeChat, type FakeChat } from './helpers.js';

const KEY = 'sk-loopback-secret-key-123';
let chat: FakeChat;
beforeAll(async () => {
  chat = await startFakeChat(KEY);
});
afterAll(async () => {
  await chat?.close();
});
const { t } = useTestApp(() => ({
  captureLogs: true,
  env: { ASK_PROVIDER: 'openai', ASK_OPENAI_URL: chat.url, ASK_OPENAI_MODEL: 'docs-model', ASK_OPENAI_KEY: KEY, ASK_ALLOW_PRIVATE: 'true' },
}));

let d: DocsSite;
beforeAll(async () => {
  d = await quotaSite(t);
});

describe('ask through an OpenAI-compatible endpoint', () => {
  it('the reader Ask box: only readable passages in the prompt, citations as links to the site', async () => {
    const before = chat.requests.length;
    const r = await t.api('GET', `${d.base}/~site/ask?q=${encodeURIComponent('quota secret for beta readers')}`);
    expect(r.status, r.text).toBe(200);
    const sent = chat.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0].headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent[0].body.model).toBe('docs-model');
    const prompt = JSON.stringify(sent[0].body.messages);
    expect(prompt).toContain('quota secret for beta readers');
    expect(prompt).toContain('100 requests per minute');
    expect(prompt).not.toContain(HIDDEN_WORD);
    expect(prompt).not.toContain(CONDITIONAL_WORD);
    expect(r.body.markdown).toMatch(/^Model says: .*\[\[1\]\]\(http[^)]+\/api\/quotas\)/);
    expect(r.body.sources).toEqual([{ title: 'Quotas', url: `${t.baseUrl}${d.base}/api/quotas`, section: 'API' }]);
    expect(r.text).not.toContain(KEY);
  });

  it('a visitor-auth site: the beta section reaches the prompt only for a beta reader', async () => {
    const v = await quotaSite(t, 'visitor-auth');
    const key = (await call(t, v, 'GET', `/sites/${v.siteId}/publishing/auth`)).privateKey as string;
    const token = (claims: Record<string, unknown>) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(key));
    const ask = async (claims: Record<string, unknown>) => {
      const enter = await t.api('GET', `${v.base}/?jwt_token=${await token(claims)}`);
      const cookie = enter.headers.get('set-cookie')!.split(';')[0];
      const before = chat.requests.length;
      const r = await t.api('GET', `${v.base}/~site/ask?q=${encodeURIComponent('SDK quota beta readers')}`, { headers: { cookie } });
      expect(r.status, r.text).toBe(200);
      return JSON.stringify(chat.requests.slice(before).map((x) => x.body));
    };
    expect(await ask({ sub: 'plain' })).not.toContain(CONDITIONAL_WORD);
    expect(await ask({ sub: 'beta', beta: true })).toContain(CONDITIONAL_WORD);
    // No token: nothing asked at all.
    const before = chat.requests.length;
    expect((await t.api('GET', `${v.base}/~site/ask?q=quota`)).status).toBe(401);
    expect(chat.requests.length).toBe(before);
  });

  it('askInOrganization through the model; a refusing endpoint is a 502 that names no key', async () => {
    const r = await t.api('POST', `/v1/orgs/${d.o.orgId}/ask`, { token: d.o.adminToken, body: { query: 'quota per minute' } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.answer.answer.markdown).toContain('Model says:');
    expect(r.body.answer.sources).toHaveLength(1);
    // A wrong key (the same server with another app's settings) fails cleanly.
    const badApp = await import('../../../src/answer/openai.js');
    const bad = badApp.openAiBackend({ url: chat.url, apiKey: 'wrong', timeoutMs: 5000, maxPromptChars: 4000, allowPrivate: true });
    await expect(bad.answer('q', [], {})).rejects.toThrow(/HTTP 401/);
    expect(t.logs.join('\n')).not.toContain(KEY);
  });

  it("streamAskInSite: the model streams, and the answer grows event by event in the description's shape", async () => {
    const { officialClient } = await import('../sites/helpers.js');
    const { assertMatchesSchema } = await import('../../helpers/spec.js');
    const before = chat.requests.length;
    const events: any[] = [];
    for await (const ev of officialClient(t, d.o.adminToken).orgs.streamAskInSite(
      d.o.orgId,
      d.siteId,
      { question: 'quota per minute', scope: { mode: 'all' } },
      { format: 'markdown' },
    ))
      events.push(ev);
    expect(chat.requests.slice(before).map((r) => r.body.stream)).toEqual([true]);
    expect(events.length).toBeGreaterThan(2);
    for (const ev of events) assertMatchesSchema('SearchAIAnswerStream', ev);
    const texts = events.map((e) => e.answer.answer.markdown as string);
    for (let i = 1; i < texts.length; i++) expect(texts[i].length).toBeGreaterThanOrEqual(texts[i - 1].length);
    expect(texts[0].startsWith('Model says:')).toBe(true);
    expect(texts.at(-1)).toMatch(/\[\[1\]\]\(http[^)]+\)/);
    expect(events.at(-1).answer.sources).toHaveLength(1);
  });

  it('bounds the prompt: passages past ASK_MAX_PROMPT_CHARS are not sent', async () => {
    const { buildPrompt } = await import('../../../src/answer/openai.js');
    const passages = Array.from({ length: 8 }, (_, i) => ({
      title: `P${i}`,
      url: `https://x.test/${i}`,
      section: null,
      text: 'word '.repeat(300),
      spaceId: 's',
      pageId: `p${i}`,
      revisionId: 'r',
      sectionIds: [],
    }));
    const { text, offered } = buildPrompt('q', passages, 4000);
    expect(text.length).toBeLessThanOrEqual(4000);
    expect(offered).toBe(2);
  });
});
