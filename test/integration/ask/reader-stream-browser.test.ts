// The Ask box in Chromium with a model that writes slowly (the `openai` back-end on a loopback chat
// server whose chunks the test lets go): the box shows the answer so far before the model's last
// chunk is sent, then the whole answer with its sources; one request reaches the model (the stream,
// not the JSON fallback). When the stream cannot be read, the box answers through the JSON endpoint.
// No console error, CSP violation or off-origin request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { expectClean, here, h1, useBrowser, watchedTab } from '../../helpers/browser.js';
import type { DocsSite } from '../reader/helpers.js';
import { quotaSite } from './helpers.js';
import { startGatedChat, type GatedChat } from './gated-chat.js';

const CHUNKS = [
  'Every token may send 100 requests per minute before the API pushes back on it. ',
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
const { t } = useTestApp(() => ({
  env: { ASK_PROVIDER: 'openai', ASK_OPENAI_URL: chat.url, ASK_OPENAI_KEY: 'sk-test', ASK_ALLOW_PRIVATE: 'true' },
}));
const browser = useBrowser();
let d: DocsSite;
beforeAll(async () => {
  d = await quotaSite(t);
}, 120_000);

const answerText = (w: { tab: import('puppeteer-core').Page }) => w.tab.$eval('.ask-panel .answer', (e) => e.textContent ?? '');

describe('the Ask box, streamed', () => {
  it('shows the answer as the model writes it, then the whole answer with its sources', async () => {
    const before = chat.requests.length;
    const w = await watchedTab(browser, t.baseUrl, { cspEveryDocument: true });
    await w.tab.goto(`${t.baseUrl}${d.base}/`);
    await w.tab.type('#site-ask', 'What is the quota per minute?');
    await w.tab.keyboard.press('Enter');

    // All but the last chunk: the box shows what the model wrote so far, and is not done.
    chat.release(CHUNKS.length - 1);
    await w.tab.waitForFunction(() => document.querySelector('.ask-panel .answer')?.textContent?.includes('saying when to retry'));
    expect(await answerText(w)).toContain('100 requests per minute');
    expect(await answerText(w)).not.toContain('send the request again');
    expect(await w.tab.$eval('.ask-panel .answer', (e) => (e as HTMLElement).dataset.done ?? null)).toBeNull();
    expect(await w.tab.$eval('.ask-panel', (e) => e.getAttribute('aria-busy'))).toBe('true');

    // The last chunk: the whole answer, its citation and its sources as links to the page.
    chat.release();
    await w.tab.waitForSelector('.ask-panel .answer[data-done="1"]');
    const text = await answerText(w);
    expect(text).toContain('send the request again');
    expect(text).toContain('Sources:');
    expect(await w.tab.$eval('.ask-panel', (e) => e.hasAttribute('aria-busy'))).toBe(false);
    const links = await w.tab.$$eval('.ask-panel .answer a', (as) =>
      as.map((a) => [a.textContent, new URL((a as HTMLAnchorElement).href).pathname]),
    );
    expect(links).toEqual([
      ['[1]', `${d.base}/api/quotas`],
      ['Quotas', `${d.base}/api/quotas`],
    ]);
    expect(chat.requests.length - before).toBe(1);

    await Promise.all([w.tab.waitForNavigation(), w.tab.click('.ask-panel .answer li a')]);
    expect(here(w.tab)).toBe(`${d.base}/api/quotas`);
    expect(await h1(w.tab)).toBe('Quotas');
    await expectClean(w);
    await w.close();
  });

  it('answers through the JSON endpoint when the stream cannot be read', async () => {
    const w = await watchedTab(browser, t.baseUrl, { cspEveryDocument: true });
    const streams: string[] = [];
    // The stream's request fails as a network error would; every other request goes as usual.
    await w.tab.evaluateOnNewDocument(() => {
      const fetch = window.fetch.bind(window);
      window.fetch = (input: RequestInfo | URL, init?: RequestInit) =>
        String(input instanceof Request ? input.url : input).includes('/~site/ask/stream')
          ? Promise.reject(new TypeError('Failed to fetch'))
          : fetch(input, init);
    });
    w.tab.on('request', (r) => {
      if (r.url().includes('/~site/ask')) streams.push(new URL(r.url()).pathname);
    });
    chat.release(CHUNKS.length);
    await w.tab.goto(`${t.baseUrl}${d.base}/?ask=${encodeURIComponent('What is the quota per minute?')}`);
    await w.tab.waitForSelector('.ask-panel .answer[data-done="1"]');
    expect(await answerText(w)).toContain('send the request again');
    expect(await w.tab.$$eval('.ask-panel .answer a', (as) => as.length)).toBe(2);
    expect(streams).toEqual([`${d.base}/~site/ask`]);
    await expectClean(w);
    await w.close();
  });
});
