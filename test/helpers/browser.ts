// Chromium for the tests that look at what a reader or an operator sees: the system browser
// (CHROMIUM_PATH, else /usr/bin/chromium; puppeteer-core downloads none), headless, with the flags
// the PDF renderer uses (--no-sandbox --disable-gpu --disable-dev-shm-usage
// --disable-background-networking --disable-component-update --disable-sync --no-first-run ...).
// Then a tab that records what a reader must never meet (requests to another origin, console
// errors, CSP violations), the assertion that it met none, and small navigation helpers.
import { afterAll, beforeAll, expect } from 'vitest';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { CHROMIUM_ARGS } from '../../src/render/browser.js';
import { CHROMIUM_PATH } from './env.js';
import { lateBound } from './late.js';

export { CHROMIUM_PATH };

/** A headless Chromium with the renderer's flags plus `args` (host resolver rules, ...). The caller closes it. */
export function launchBrowser(args: string[] = []): Promise<Browser> {
  return puppeteer.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS, ...args] });
}

/**
 * One browser for a test file (or a `describe` block): launched in `beforeAll`, closed in `afterAll`.
 * Returns a stand-in to name at module level; using it outside the hooks' span fails with one line.
 * Register it after `useTestApp` so that it closes before the app does.
 */
export function useBrowser(opts: { args?: string[]; timeoutMs?: number } = {}): Browser {
  const browser = lateBound<Browser>('the browser (useBrowser)');
  beforeAll(async () => {
    browser.set(await launchBrowser(opts.args));
  }, opts.timeoutMs ?? 120_000);
  afterAll(async () => {
    const b = browser.current();
    browser.set(undefined);
    await b?.close();
  });
  return browser.handle;
}

/** The console lines of a 401 or 404 answer: where a test asks for one, the browser logs its status as an error. */
export const STATUS_401_404 = /status of 40[14]/;

export interface WatchOptions {
  /** JavaScript on (default) or off. */
  js?: boolean;
  /** Origins besides the site's that the tab may reach (a customer's login page). */
  allowed?: string[];
  /** Console errors whose text matches are not recorded. */
  ignoreConsole?: RegExp;
  /** Open the tab in its own incognito browser context (closed by `close()`): cookies of one test never reach another. */
  isolated?: boolean;
  /**
   * Record the CSP violations of every document the tab loads (a binding, which survives
   * navigations). Otherwise `cspViolations()` reads those of the document shown when it is called.
   */
  cspEveryDocument?: boolean;
}

export interface Watched {
  tab: Page;
  /** The tab's browser context: its own when opened `isolated`, else the browser's default one. */
  context: BrowserContext;
  /** Requests to an origin other than the site's (and the allowed ones): aborted and listed. */
  offOrigin: string[];
  /** Console errors (with the script's URL) and uncaught page errors. */
  consoleErrors: string[];
  cspViolations(): Promise<string[]>;
  /** Closes the tab, or its context when opened `isolated`. */
  close(): Promise<void>;
}

/** A tab on the site at `baseUrl` (its origin is the one allowed), watched for what a reader must never meet. */
export async function watchedTab(browser: Browser, baseUrl: string, opts: WatchOptions = {}): Promise<Watched> {
  const context = opts.isolated ? await browser.createBrowserContext() : browser.defaultBrowserContext();
  const tab = await context.newPage();
  await tab.setJavaScriptEnabled(opts.js ?? true);
  await tab.setViewport({ width: 1280, height: 900 });
  const origin = new URL(baseUrl).origin;
  const allowed = opts.allowed ?? [];
  const offOrigin: string[] = [];
  const consoleErrors: string[] = [];
  await tab.setRequestInterception(true);
  tab.on('request', (req) => {
    const url = req.url();
    if (url.startsWith('data:') || [origin, ...allowed].includes(new URL(url).origin)) void req.continue();
    else {
      offOrigin.push(url);
      void req.abort();
    }
  });
  tab.on('console', (m) => {
    if (m.type() === 'error' && !opts.ignoreConsole?.test(m.text())) consoleErrors.push(`${m.text()} ${m.location().url ?? ''}`);
  });
  tab.on('pageerror', (e) => consoleErrors.push(String(e)));
  let cspViolations: () => Promise<string[]>;
  if (opts.cspEveryDocument) {
    const csp: string[] = [];
    // A binding, not a page variable: it survives navigations and the CSP does not apply to it.
    await tab.exposeFunction('__cspViolation', (v: string) => void csp.push(v));
    await tab.evaluateOnNewDocument(() => {
      document.addEventListener('securitypolicyviolation', (e) =>
        (window as unknown as { __cspViolation(v: string): void }).__cspViolation(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    cspViolations = () => Promise.resolve(csp);
  } else {
    // Runs in every document before its own scripts (CSP does not apply to it).
    await tab.evaluateOnNewDocument(() => {
      const w = window as unknown as { __csp: string[] };
      w.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    let seen: string[] = [];
    cspViolations = async () => {
      seen = seen.concat(await tab.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []).catch(() => []));
      return seen;
    };
  }
  const close = () => (opts.isolated ? context.close() : tab.close());
  return { tab, context, offOrigin, consoleErrors, cspViolations, close };
}

/** Nothing off-origin, no console error, no CSP violation. */
export async function expectClean(w: Watched) {
  expect(w.offOrigin).toEqual([]);
  expect(w.consoleErrors).toEqual([]);
  expect(await w.cspViolations()).toEqual([]);
}

/** The path of the tab's URL. */
export const here = (tab: Page) => new URL(tab.url()).pathname;
export const h1 = (tab: Page) => tab.$eval('main h1', (e) => e.textContent);

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
