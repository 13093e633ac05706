// The headless Chromium that prints PDF exports (puppeteer-core driving the system Chromium at
// CHROMIUM_PATH; no browser download). One browser per process, launched on first use and reused
// by every render; each render gets its own incognito browser context and page, closed after. The
// next render's context and page are prepared while the process waits for it (a spare), so a
// render does not wait for Chromium to set one up.
//
// Pages load nothing from the network: JavaScript is disabled and request interception aborts
// every request except data: URLs (images are embedded as data: URIs by src/render/document.ts),
// so exported content cannot make the worker fetch anything.
//
// puppeteer-core is imported lazily: processes that never render (the API, workers for other
// queues) do not load it. `closeBrowser()` runs when a worker pool closes (workers/start.ts);
// puppeteer also kills the browser if the process exits without it. A worker that dies without
// running any code (SIGKILL, OOM killer) cannot do either, and Chromium runs in a process group
// of its own: so it is driven over a pipe (`pipe: true`, --remote-debugging-pipe) rather than a
// WebSocket, and Chromium exits by itself when the pipe's far end, its worker, is gone.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';

/** Chromium flags (puppeteer adds `--headless=new` for `headless: true`). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--font-render-hinting=none',
];

interface Running {
  executablePath: string;
  browser: Promise<Browser>;
  userDataDir: Promise<string>;
}

let current: Running | null = null;
let active = 0;
const idle: (() => void)[] = [];

async function launch(executablePath: string, userDataDir: string): Promise<Browser> {
  const { default: puppeteer } = await import('puppeteer-core');
  return puppeteer.launch({
    executablePath,
    headless: true,
    args: CHROMIUM_ARGS,
    userDataDir,
    // Not a WebSocket: the pipe closing when this process dies, however it dies, ends Chromium.
    pipe: true,
    // Our own shutdown closes the browser; puppeteer's signal handlers would exit the process
    // (SIGINT) or kill Chromium under a render that is still finishing.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    timeout: 60_000,
    protocolTimeout: 300_000,
  });
}

function start(executablePath: string): Running {
  const userDataDir = mkdtemp(path.join(tmpdir(), 'dp-chromium-'));
  const running: Running = {
    executablePath,
    userDataDir,
    browser: userDataDir.then((dir) => launch(executablePath, dir)),
  };
  running.browser.then(
    (b) =>
      b.once('disconnected', () => {
        if (current === running) current = null;
        void userDataDir.then((dir) => rm(dir, { recursive: true, force: true })).catch(() => {});
      }),
    () => {
      if (current === running) current = null;
      void userDataDir.then((dir) => rm(dir, { recursive: true, force: true })).catch(() => {});
    },
  );
  return running;
}

/** The process's browser, launched (or relaunched after a crash) on demand. */
async function getBrowser(executablePath: string): Promise<Browser> {
  if (!current || current.executablePath !== executablePath) {
    if (current) void closeRunning(current);
    current = start(executablePath);
  }
  const r = current;
  const browser = await r.browser;
  if (browser.connected) return browser;
  if (current === r) current = null; // crashed: launch another
  return getBrowser(executablePath);
}

interface OfflinePage {
  browser: Browser;
  context: BrowserContext;
  page: Page;
}

/** The next render's page, prepared after the last render, on the browser then running. */
let spare: { running: Running; page: Promise<OfflinePage | null> } | null = null;

/** A new isolated context and page that may load only data: URLs, with JavaScript disabled. */
async function openOfflinePage(browser: Browser): Promise<OfflinePage> {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.setJavaScriptEnabled(false);
    await page.setRequestInterception(true);
    page.on('request', (req) => {
      if (req.isInterceptResolutionHandled()) return;
      const url = req.url();
      if (url.startsWith('data:') || url === 'about:blank') void req.continue().catch(() => {});
      else void req.abort('blockedbyclient').catch(() => {});
    });
    return { browser, context, page };
  } catch (err) {
    await context.close().catch(() => {});
    throw err;
  }
}

/** The spare page when it is still usable on the current browser, else a new one. */
async function takeOfflinePage(executablePath: string): Promise<OfflinePage> {
  const s = spare;
  spare = null;
  const ready = s && s.running === current && current.executablePath === executablePath ? await s.page : null;
  if (ready && ready.browser.connected && !ready.page.isClosed()) return ready;
  if (ready) await ready.context.close().catch(() => {});
  else if (s) void s.page.then((p) => p?.context.close()).catch(() => {});
  return openOfflinePage(await getBrowser(executablePath));
}

/** Prepare the next render's page on the running browser (never launching one). */
function prepareSpare(running: Running | null) {
  if (spare || !running || running !== current) return;
  spare = {
    running,
    page: running.browser.then((b) => (b.connected ? openOfflinePage(b) : null)).catch(() => null),
  };
}

/**
 * Run `fn` with a fresh page of an isolated browser context that may load only data: URLs, with
 * JavaScript disabled. The context is closed afterwards, whatever happens.
 */
export async function withOfflinePage<T>(executablePath: string, fn: (page: Page) => Promise<T>): Promise<T> {
  active++;
  try {
    const { context, page } = await takeOfflinePage(executablePath);
    try {
      return await fn(page);
    } finally {
      await context.close().catch(() => {});
      prepareSpare(current);
    }
  } finally {
    active--;
    if (active === 0) for (const wake of idle.splice(0)) wake();
  }
}

async function closeRunning(r: Running) {
  const browser = await r.browser.catch(() => null);
  await browser?.close().catch(() => browser.process()?.kill('SIGKILL'));
  await rm(await r.userDataDir, { recursive: true, force: true }).catch(() => {});
}

/**
 * Close the browser once no render is using it (waiting at most `waitMs` for running renders;
 * a later render relaunches one). A no-op when none was launched.
 */
export async function closeBrowser(waitMs = 5_000): Promise<void> {
  if (!current) return;
  if (active > 0) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, waitMs);
      idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  const r = current;
  current = null;
  const s = spare;
  spare = null;
  await s?.page.then((p) => p?.context.close()).catch(() => {});
  if (r) await closeRunning(r);
}
