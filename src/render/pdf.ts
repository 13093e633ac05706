// HTML -> PDF bytes with the shared offline Chromium (src/render/browser.ts).
import type { PDFOptions } from 'puppeteer-core';
import { withOfflinePage } from './browser.js';

interface PrintOptions {
  executablePath: string;
  /** Upper bound for loading the HTML and for printing it, each. */
  timeoutMs: number;
}

/** Thrown when Chromium does not finish in time (a render worth retrying, not a content problem). */
class RenderTimeoutError extends Error {}

const FOOTER = `<div style="width:100%;font-size:8px;color:#777;text-align:center;font-family:sans-serif">
<span class="pageNumber"></span> / <span class="totalPages"></span></div>`;

/** page.pdf options of every export (the benchmark's baseline prints with the same). */
export function pdfOptions(timeoutMs: number): PDFOptions {
  return {
    format: 'A4',
    printBackground: true,
    displayHeaderFooter: true,
    headerTemplate: '<div></div>',
    footerTemplate: FOOTER,
    margin: { top: '18mm', bottom: '20mm', left: '16mm', right: '16mm' },
    outline: true,
    tagged: true,
    timeout: timeoutMs,
  };
}

/** Print a complete HTML document to an A4 PDF (backgrounds, page numbers, an outline from the headings). */
export async function printPdf(html: string, o: PrintOptions): Promise<Buffer> {
  return withOfflinePage(o.executablePath, async (page) => {
    try {
      await page.setContent(html, { waitUntil: 'load', timeout: o.timeoutMs });
      const bytes = await page.pdf(pdfOptions(o.timeoutMs));
      return Buffer.from(bytes);
    } catch (err) {
      if ((err as Error)?.name === 'TimeoutError')
        throw new RenderTimeoutError(`Chromium did not finish rendering within ${o.timeoutMs} ms`);
      throw err;
    }
  });
}

/** Number of pages of a PDF written by Chromium (Skia writes one `/Type /Page` dictionary per page). */
export function pdfPageCount(pdf: Buffer): number {
  return (pdf.toString('latin1').match(/\/Type\s*\/Page(?![a-zA-Z])/g) ?? []).length;
}
