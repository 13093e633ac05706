// Puppeteer setup shared by the reader-site Chromium tests: a tab that records what a reader must
// never see (off-origin requests, console errors, CSP violations), and the assertion that it saw none.
import { expect } from 'vitest';
import type { Browser, Page } from 'puppeteer-core';

export interface Watched {
  tab: Page;
  offOrigin: string[];
  consoleErrors: string[];
  cspViolations(): Promise<string[]>;
}

export async function watchedTab(browser: Browser, baseUrl: string, js = true): Promise<Watched> {
  const tab = await browser.newPage();
  await tab.setJavaScriptEnabled(js);
  await tab.setViewport({ width: 1280, height: 900 });
  const origin = new URL(baseUrl).origin;
  const offOrigin: string[] = [];
  const consoleErrors: string[] = [];
  await tab.setRequestInterception(true);
  tab.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith('data:') && new URL(url).origin !== origin) {
      offOrigin.push(url);
      void req.abort();
    } else void req.continue();
  });
  tab.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(`${m.text()} ${m.location().url ?? ''}`);
  });
  tab.on('pageerror', (e) => consoleErrors.push(String(e)));
  // Runs in every document before its own scripts (CSP does not apply to it).
  await tab.evaluateOnNewDocument(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  let seen: string[] = [];
  const cspViolations = async () => {
    seen = seen.concat(await tab.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []).catch(() => []));
    return seen;
  };
  return { tab, offOrigin, consoleErrors, cspViolations };
}

/** Nothing off-origin, no console error, no CSP violation (in the current document). */
export async function expectClean(w: Watched) {
  expect(w.offOrigin).toEqual([]);
  expect(w.consoleErrors).toEqual([]);
  expect(await w.cspViolations()).toEqual([]);
}

/** An `rgb(…)`/`rgba(…)` computed color as `#rrggbb`. */
export function cssHex(rgb: string): string {
  const m = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(rgb);
  if (!m) throw new Error(`not an rgb color: ${rgb}`);
  return `#${[m[1], m[2], m[3]].map((x) => Number(x).toString(16).padStart(2, '0')).join('')}`;
}
