// Chromium as a reader, for the access tests (browser-access.test.ts): a tab that records what a
// reader must never meet (requests to another origin, console errors, CSP violations), across
// every document it loads, and small navigation helpers.
import path from 'node:path';
import { expect } from 'vitest';
import type { Browser, BrowserContext, HTTPResponse, Page } from 'puppeteer-core';

export const ARTIFACTS = process.env.SITE_ARTIFACTS ?? path.resolve('data/test-artifacts/site');

export interface Watched {
  /** Its own browser context: cookies of one test never reach another. */
  context: BrowserContext;
  tab: Page;
  /** Requests to an origin other than the site's (and the allowed ones): aborted and listed. */
  offOrigin: string[];
  consoleErrors: string[];
  /** `securitypolicyviolation` events of every document the tab loaded. */
  csp: string[];
}

/** A tab on `origin`; `allowed` origins may be reached too (a customer's login page). */
export async function watchedTab(browser: Browser, origin: string, opts: { js?: boolean; allowed?: string[] } = {}): Promise<Watched> {
  const context = await browser.createBrowserContext();
  const tab = await context.newPage();
  await tab.setJavaScriptEnabled(opts.js ?? true);
  await tab.setViewport({ width: 1280, height: 900 });
  const w: Watched = { context, tab, offOrigin: [], consoleErrors: [], csp: [] };
  await tab.setRequestInterception(true);
  tab.on('request', (req) => {
    const url = req.url();
    if (url.startsWith('data:') || new URL(url).origin === origin || opts.allowed?.includes(new URL(url).origin)) void req.continue();
    else {
      w.offOrigin.push(url);
      void req.abort();
    }
  });
  tab.on('console', (m) => {
    // Where a test asks for a 404 or 401 page, the browser logs that status as an error.
    if (m.type() === 'error' && !/status of 40[14]/.test(m.text())) w.consoleErrors.push(m.text());
  });
  tab.on('pageerror', (e) => w.consoleErrors.push(String(e)));
  // A binding, not a page variable: it survives navigations and the CSP does not apply to it.
  await tab.exposeFunction('__cspViolation', (v: string) => void w.csp.push(v));
  await tab.evaluateOnNewDocument(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      (window as unknown as { __cspViolation(v: string): void }).__cspViolation(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  return w;
}

export function expectClean(w: Watched) {
  expect(w.offOrigin).toEqual([]);
  expect(w.consoleErrors).toEqual([]);
  expect(w.csp).toEqual([]);
}

export const pathHere = (tab: Page) => new URL(tab.url()).pathname;
export const h1 = (tab: Page) => tab.$eval('main h1', (e) => e.textContent);

export async function go(tab: Page, url: string): Promise<HTTPResponse> {
  const res = await tab.goto(url, { waitUntil: 'load' });
  expect(res, url).not.toBeNull();
  return res!;
}

/** Click the link of `scope` whose text is `text`, and wait for the next page. */
export async function clickLinkText(tab: Page, scope: string, text: string) {
  const handle = await tab.evaluateHandle(
    (s, x) => [...document.querySelectorAll(`${s} a`)].find((a) => a.textContent?.trim() === x) ?? null,
    scope,
    text,
  );
  const el = handle.asElement();
  expect(el, `link "${text}" in ${scope}`).not.toBeNull();
  await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), (el as any).click()]);
}

export const linkTexts = (tab: Page, selector: string) => tab.$$eval(selector, (as) => as.map((a) => a.textContent?.trim() ?? ''));

export const screenshot = (tab: Page, name: string) => tab.screenshot({ path: path.join(ARTIFACTS, name) });
