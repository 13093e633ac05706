// Chromium as a reader, for the access tests (browser-access.test.ts): where screenshots go, and
// small navigation helpers (the watched tab itself is test/helpers/browser.ts's).
import path from 'node:path';
import { expect } from 'vitest';
import type { HTTPResponse, Page } from 'puppeteer-core';

export const ARTIFACTS = process.env.SITE_ARTIFACTS ?? path.resolve('data/test-artifacts/site');

export async function go(tab: Page, url: string): Promise<HTTPResponse> {
  const res = await tab.goto(url, { waitUntil: 'load' });
  expect(res, url).not.toBeNull();
  return res!;
}

export const linkTexts = (tab: Page, selector: string) => tab.$$eval(selector, (as) => as.map((a) => a.textContent?.trim() ?? ''));

export const screenshot = (tab: Page, name: string) => tab.screenshot({ path: path.join(ARTIFACTS, name) });
