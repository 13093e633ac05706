// GitBook's reusable content as it lives in a synced repository: `{% include "../.gitbook/includes/x.md" %}`
// names a Markdown file of the space (imported as a file). For readers (published view, PDF) the
// block is replaced by that file's body, front matter dropped, indented like the tag, before the
// page is parsed. The stored page keeps the tag, so reads through the API and exports round-trip.
// Bounded: a page expands at most MAX_INCLUDES distinct files of at most MAX_INCLUDE_BYTES each,
// one level deep (an include inside an included file stays a tag).
import type { AppContext } from '../context.js';
import type { Resolver } from './links.js';
import type { Snapshot, TreePage } from './snapshot.js';

const MAX_INCLUDES = 20;
const MAX_INCLUDE_BYTES = 256 * 1024;
const TAG = /^([ \t]*)\{%[ \t]*include[ \t]+(?:src[ \t]*=[ \t]*)?"([^"\n]{1,1024})"[ \t]*%\}[ \t]*$/gm;

/** `markdown` with each `{% include %}` line naming a Markdown file of the space replaced by its body. */
export async function expandIncludes(
  app: Pick<AppContext, 'blobs'>,
  snapshot: Pick<Snapshot, 'filesById'>,
  resolver: Resolver,
  page: TreePage,
  markdown: string,
): Promise<string> {
  if (!markdown.includes('include')) return markdown;
  const bodies = new Map<string, string | null>();
  for (const m of markdown.matchAll(TAG)) {
    const src = m[2];
    if (bodies.has(src)) continue;
    if (bodies.size >= MAX_INCLUDES) break;
    bodies.set(src, await includeBody(app, snapshot, resolver, page, src));
  }
  if (![...bodies.values()].some((b) => b !== null)) return markdown;
  return markdown.replace(TAG, (line, indent: string, src: string) => {
    const body = bodies.get(src);
    if (!body) return line;
    return body
      .split('\n')
      .map((l) => (l ? indent + l : l))
      .join('\n');
  });
}

async function includeBody(
  app: Pick<AppContext, 'blobs'>,
  snapshot: Pick<Snapshot, 'filesById'>,
  resolver: Resolver,
  page: TreePage,
  src: string,
): Promise<string | null> {
  const target = resolver.resolve(src, page);
  if (target?.kind !== 'file') return null;
  const file = snapshot.filesById.get(target.file);
  if (!file || file.size > MAX_INCLUDE_BYTES || !/\.(md|markdown)$/i.test(file.name)) return null;
  const bytes = await app.blobs.get(file.blobKey);
  if (!bytes) return null;
  return withoutFrontMatter(bytes.toString('utf8')).trim();
}

/** The text after a YAML front matter block (a first line `---` up to a line `---` or `...`). */
function withoutFrontMatter(text: string): string {
  const m = /^---[ \t]*\r?\n[\s\S]*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text);
  return m ? text.slice(m[0].length) : text;
}
