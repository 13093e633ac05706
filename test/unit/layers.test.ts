// The layer rules of ../shared/DESIGN.md (.dependency-cruiser.cjs, also run by `npm run lint`): the
// real tree has no violation, and the rules do catch an import that runs back up in a small tree
// laid out like the project's folders.
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const depcruise = path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const config = path.join(root, '.dependency-cruiser.cjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}
interface CruiseOutput {
  summary: { violations: Violation[]; totalCruised: number };
}

async function cruise(cwd: string, dirs: string[]): Promise<CruiseOutput> {
  // depcruise exits non-zero when it finds violations; the JSON report is on stdout either way.
  const run = promisify(execFile);
  const out = await run(process.execPath, [depcruise, '--config', config, '--output-type', 'json', ...dirs], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return JSON.parse(out.stdout) as CruiseOutput;
}

const tmp: string[] = [];
afterAll(async () => {
  for (const dir of tmp) await rm(dir, { recursive: true, force: true });
});

describe('layer rules', () => {
  it('hold on the whole tree: no import runs back up, no cycle, no orphan', async () => {
    const result = await cruise(root, ['src', 'jobs', 'workers']);
    expect(result.summary.totalCruised).toBeGreaterThan(300);
    expect(result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
  }, 120_000);

  it('catch imports that reach up from each floor', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'layers-'));
    tmp.push(dir);
    const files: Record<string, string> = {
      'src/core/errors.ts': "import { mayRead } from '../policies/spaces.js';\nexport const x = mayRead;\n",
      'src/policies/spaces.ts': "import { list } from '../services/spaces.js';\nexport const mayRead = list;\n",
      'src/services/spaces.ts': "import { reply } from '../http/route.js';\nexport const list = reply;\n",
      'src/http/route.ts': 'export const reply = 1;\n',
      'src/content/draft.ts': "import { list } from '../services/spaces.js';\nexport const d = list;\n",
      'src/routes/spaces.ts':
        "import { run } from '../../jobs/run.js';\nimport { x } from '../core/errors.js';\nimport { d } from '../content/draft.js';\nexport const r = [run, x, d];\n",
      'jobs/run.ts': 'export const run = 1;\n',
      'src/api.ts': "import { r } from './routes/spaces.js';\nexport const a = r;\n",
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
    };
    for (const [name, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await writeFile(path.join(dir, name), text);
    }
    const result = await cruise(dir, ['src', 'jobs']);
    const found = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
    expect(found).toEqual([
      'engine-reaches-up: src/content/draft.ts -> src/services/spaces.ts',
      'platform-reaches-up: src/core/errors.ts -> src/policies/spaces.ts',
      'policy-reaches-up: src/policies/spaces.ts -> src/services/spaces.ts',
      'routes-and-jobs-apart: src/routes/spaces.ts -> jobs/run.ts',
      'service-reaches-up: src/services/spaces.ts -> src/http/route.ts',
    ]);
  }, 120_000);
});
