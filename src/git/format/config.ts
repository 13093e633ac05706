// `.gitbook.yaml` at the top of the project directory:
//
//   root: ./docs/              # docs folder, relative to the project directory (default ./)
//   structure:
//     readme: README.md        # first page, relative to root
//     summary: SUMMARY.md      # table of contents, relative to root
//   redirects:
//     old/path: new/file.md    # relative to root
//
// The file belongs to the user: it is read, never written (generateRepository leaves it alone).
import { parse } from 'yaml';
import { RepoFormatError } from './errors.js';
import { STRUCTURE_LIMITS } from './limits.js';
import { isMarkdownPath, resolvePath } from './paths.js';
import type { GitBookConfig } from './types.js';

export const CONFIG_FILE = '.gitbook.yaml';

const fmt = (n: number) => n.toLocaleString('en-US');

export function defaultConfig(): GitBookConfig {
  return { root: './', readme: 'README.md', summary: 'SUMMARY.md', redirects: {} };
}

/** The validated, normalised locations of a config: paths relative to the project directory's docs root. */
interface ResolvedConfig {
  /** Docs folder relative to the project directory: '' or 'docs' or 'packages/product/docs'. */
  rootDir: string;
  /** Relative to rootDir. */
  readme: string;
  summary: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function stringField(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new RepoFormatError(`${CONFIG_FILE}: ${field} must be a string`);
  return value.trim();
}

function markdownFile(path: string, field: string): string {
  const resolved = resolvePath(path, `${CONFIG_FILE} ${field}`);
  if (!resolved || !isMarkdownPath(resolved)) throw new RepoFormatError(`${CONFIG_FILE} ${field}: '${path}' is not a markdown file`);
  return resolved;
}

/** './docs/' for 'docs', './' for the project directory itself. */
function canonicalRoot(rootDir: string): string {
  return rootDir ? `./${rootDir}/` : './';
}

/**
 * Parses `.gitbook.yaml` (absent or empty: the defaults). A bad redirect is left out with a warning
 * (pushed on `warnings`, naming the file and the entry); anything else wrong (the YAML, the root,
 * the structure, a file past STRUCTURE_LIMITS.configChars) throws RepoFormatError naming the key.
 */
export function parseConfig(text: string | undefined, warnings: string[] = []): GitBookConfig {
  const config = defaultConfig();
  if (text === undefined || text.trim() === '') return config;
  if (text.length > STRUCTURE_LIMITS.configChars) {
    throw new RepoFormatError(`${CONFIG_FILE}: longer than ${fmt(STRUCTURE_LIMITS.configChars)} characters (${fmt(text.length)})`);
  }
  let data: unknown;
  try {
    data = parse(text, { logLevel: 'error' });
  } catch (err) {
    throw new RepoFormatError(`${CONFIG_FILE}: invalid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (data === null || data === undefined) return config;
  if (!isObject(data)) throw new RepoFormatError(`${CONFIG_FILE}: expected a mapping of settings`);
  const root = stringField(data.root, 'root');
  if (root !== undefined) config.root = canonicalRoot(resolvePath(root, `${CONFIG_FILE} root`));
  if (data.structure !== undefined && data.structure !== null) {
    if (!isObject(data.structure)) throw new RepoFormatError(`${CONFIG_FILE}: structure must be a mapping`);
    const readme = stringField(data.structure.readme, 'structure.readme');
    const summary = stringField(data.structure.summary, 'structure.summary');
    if (readme) config.readme = markdownFile(readme, 'structure.readme');
    if (summary) config.summary = markdownFile(summary, 'structure.summary');
    if (config.readme === config.summary)
      throw new RepoFormatError(`${CONFIG_FILE}: structure.readme and structure.summary are the same file '${config.readme}'`);
  }
  if (data.redirects !== undefined && data.redirects !== null) {
    if (!isObject(data.redirects)) throw new RepoFormatError(`${CONFIG_FILE}: redirects must be a mapping of old path to new file`);
    let count = 0;
    for (const [from, to] of Object.entries(data.redirects)) {
      if (++count > STRUCTURE_LIMITS.redirects) {
        warnings.push(
          `${CONFIG_FILE} redirects: more than ${fmt(STRUCTURE_LIMITS.redirects)} redirects; '${from}' and the ones after it are ignored`,
        );
        break;
      }
      try {
        config.redirects[from] = redirectTarget(from, to);
      } catch (err) {
        if (!(err instanceof RepoFormatError)) throw err;
        warnings.push(`${err.message}; the redirect is ignored`);
      }
    }
  }
  return config;
}

/** The target of a redirect, checked (both paths inside the docs root); throws RepoFormatError naming the entry. */
function redirectTarget(from: string, to: unknown): string {
  const entry = `${CONFIG_FILE} redirects`;
  if (typeof to !== 'string' || to.trim() === '') throw new RepoFormatError(`${entry}: the target of '${from}' must be a path`);
  if (!resolvePath(from, entry)) throw new RepoFormatError(`${entry}: '${from}' is not a path`);
  resolvePath(to.trim(), `${entry} (target of '${from}')`);
  return to.trim();
}

/** Validates a config (from parseConfig or a caller) and gives its normalised locations. */
export function resolveConfig(config: GitBookConfig | undefined): ResolvedConfig {
  const c = config ?? defaultConfig();
  const rootDir = resolvePath(c.root || './', `${CONFIG_FILE} root`);
  const readme = markdownFile(c.readme || 'README.md', 'structure.readme');
  const summary = markdownFile(c.summary || 'SUMMARY.md', 'structure.summary');
  return { rootDir, readme, summary };
}
