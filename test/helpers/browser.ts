// Chromium for the tests that look at what a reader or an operator sees: the system browser
// (CHROMIUM_PATH, else /usr/bin/chromium; puppeteer-core downloads none), headless, with the flags
// the PDF renderer uses (--no-sandbox --disable-gpu --disable-dev-shm-usage
// --disable-background-networking --disable-component-update --disable-sync --no-first-run ...).
import { afterAll, beforeAll } from 'vitest';
import puppeteer, { type Browser } from 'puppeteer-core';
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
