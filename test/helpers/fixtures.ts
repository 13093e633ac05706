// Where the tests find their fixtures. The repository's own small ones live in test/fixtures/; the
// shared ones (real GitBook repositories, real OpenAPI descriptions) live beside the project, in
// ../shared/fixtures/ relative to its root, or wherever SHARED_FIXTURES names (GITBOOK_FIXTURES
// names the gitbook folder alone). A test that needs a shared folder calls `requireFixtures`: a
// missing folder fails it with one line, never skips it.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** test/fixtures/ of this repository. */
export const TEST_FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** The shared fixture folder: SHARED_FIXTURES, else `<project root>/../shared/fixtures`. */
export const SHARED_FIXTURES = path.resolve(
  process.env.SHARED_FIXTURES || fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url)),
);

/** Real GitBook repositories, one folder each: GITBOOK_FIXTURES, else `<shared fixtures>/gitbook`. */
export const GITBOOK_FIXTURES = path.resolve(process.env.GITBOOK_FIXTURES || path.join(SHARED_FIXTURES, 'gitbook'));

/** Real third-party OpenAPI descriptions: `<shared fixtures>/openapi`. */
export const OPENAPI_FIXTURES = path.join(SHARED_FIXTURES, 'openapi');

/** `folder` (one of the above, or a folder inside one) once checked to exist; else throws one line saying what to set. */
export function requireFixtures(folder: string): string {
  if (!existsSync(folder))
    throw new Error(
      `shared fixtures not found at ${folder}: set SHARED_FIXTURES to the shared fixtures folder (or GITBOOK_FIXTURES to its gitbook/ folder); the default is ../shared/fixtures beside the project root`,
    );
  return folder;
}

/** Every SUMMARY.md under `dir` (skipping .git), as [path, text] pairs; none when `dir` is missing. */
export function summaryFiles(dir: string, out: [string, string][] = []): [string, string][] {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && e.name !== '.git') summaryFiles(p, out);
    else if (e.name === 'SUMMARY.md') out.push([p, readFileSync(p, 'utf8')]);
  }
  return out;
}
