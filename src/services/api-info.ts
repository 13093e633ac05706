// getApiInformation: the running release (package.json's version) and its date (when that
// package.json was written: the install or image build of this release).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// From src/services/ when run from source, from dist/src/services/ when compiled.
const candidates = ['../../package.json', '../../../package.json'].map((rel) => fileURLToPath(new URL(rel, import.meta.url)));
const manifest = candidates.find((f) => existsSync(f)) ?? candidates[0];
let info: { version: string; build: string } | undefined;

export function apiInformation(): { version: string; build: string } {
  if (!info) {
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string };
    info = { version: pkg.version ?? '0.0.0', build: statSync(manifest).mtime.toISOString() };
  }
  return info;
}
