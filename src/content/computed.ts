import { LRUCache } from 'lru-cache';
import type { AppContext } from '../context.js';
import type { PageNode } from './types.js';
import type { ReferenceOptions } from './openapi-render.js';
import { latestVersionBlob, specSlugBySourceUrl } from '../db/repos/openapi.js';

/** Rendered references kept per process (versions are immutable: keyed by their blob). */
const CACHE_CHARS = 32 * 1024 * 1024;
const cache = new LRUCache<string, string>({ maxSize: CACHE_CHARS, sizeCalculation: (v, k) => v.length + k.length + 64 });
const pending = new Map<string, Promise<string>>();

/** The OpenAPI spec a computed source depends on (`dependencies.spec.ref` = `{kind: "openapi", spec: <slug or id>}`). */
export function computedSpecRef(c: PageNode['computed'] | undefined): string | null {
  const ref = (c?.dependencies as { spec?: { ref?: { kind?: string; spec?: string } } } | undefined)?.spec?.ref;
  if (!c || !/openapi/.test(c.type) || ref?.kind !== 'openapi' || typeof ref.spec !== 'string' || !ref.spec) return null;
  return ref.spec;
}

/**
 * Evaluate a computed page into markdown. Supported source: an OpenAPI spec of the organization
 * (`computed.type` "builtin:openapi"), rendered from its latest processed version as a reference of
 * its operations (and of its models with `props.models`), or one part of it (`props.doc` "info",
 * "tag" with `props.page` the tag, or "models") when the reference is split into pages; with
 * `props.downloadLink`, the overview links to the description when the spec is public. The description is parsed and rendered
 * on the Markdown pool's threads, within its time limit, never on the caller's event loop; the
 * result is cached per version.
 */
export async function evaluateComputedPage(app: AppContext, orgId: string, node: PageNode): Promise<string> {
  const c = node.computed;
  const spec = computedSpecRef(c);
  if (!spec) return `> This page is computed from an unsupported source (${c?.type ?? 'none'}).\n`;
  const latest = await latestVersionBlob(app.db, orgId, spec);
  if (!latest) return `> The OpenAPI spec "${spec}" has no processed version yet.\n`;
  const props = (c?.props ?? {}) as { models?: unknown; downloadLink?: unknown; doc?: unknown; page?: unknown; method?: unknown };
  const part: ReferenceOptions['part'] =
    props.doc === 'info' || props.doc === 'models'
      ? { doc: props.doc }
      : props.doc === 'tag' && typeof props.page === 'string'
        ? { doc: 'tag', page: props.page }
        : props.doc === 'operation' && typeof props.page === 'string' && typeof props.method === 'string'
          ? { doc: 'operation', page: props.page, method: props.method }
          : undefined;
  const markdown = await renderReference(app, spec, latest.blobKey, { models: props.models === true, part });
  // `downloadLink`: readers get the description itself, where they may (a public spec's link).
  if (props.downloadLink === true && latest.visibility === 'public' && (!part || part.doc === 'info')) {
    const url = `${app.config.publicUrl}/public/openapi/${encodeURIComponent(orgId)}/${encodeURIComponent(latest.slug)}`;
    return `[Download the OpenAPI description](${url})\n\n${markdown}`;
  }
  return markdown;
}

/**
 * One operation of an organization's OpenAPI spec (slug or id) as Markdown, for GitBook's
 * `{% openapi-operation %}` / `{% openapi %}` blocks: path as written in the description, method
 * in any case. Rendered off the event loop and cached like computed pages.
 */
export async function evaluateOpenAPIOperation(
  app: AppContext,
  orgId: string,
  spec: string,
  path: string,
  method: string,
): Promise<string> {
  const latest = await latestVersionBlob(app.db, orgId, spec);
  if (!latest) return `> The OpenAPI spec "${spec}" has no processed version yet.\n`;
  return renderReference(app, spec, latest.blobKey, { part: { doc: 'operation', page: path, method: method.toLowerCase() } });
}

function renderReference(app: AppContext, spec: string, blobKey: string, options: ReferenceOptions): Promise<string> {
  return cachedRender(`${blobKey}\n${JSON.stringify(options)}`, async () => {
    const bytes = await app.blobs.get(blobKey);
    if (!bytes) return { markdown: `> The OpenAPI spec "${spec}" has no processed version yet.\n`, keep: false };
    const out = await app.markdown.openapiReference(bytes.toString('utf8'), options);
    return { markdown: out.markdown, keep: !out.timedOut };
  });
}

/** One render per key at a time, kept in the cache when `keep` (versions and files are immutable). */
function cachedRender(key: string, render: () => Promise<{ markdown: string; keep: boolean }>): Promise<string> {
  const hit = cache.get(key);
  if (hit !== undefined) return Promise.resolve(hit);
  let run = pending.get(key);
  if (!run) {
    run = render()
      .then((r) => {
        if (r.keep) cache.set(key, r.markdown);
        return r.markdown;
      })
      .finally(() => pending.delete(key));
    pending.set(key, run);
  }
  return run;
}

/** Most OpenAPI blocks of one page evaluated (each is one operation; the rest show method and path). */
const MAX_OPERATION_BLOCKS = 50;
/** Largest OpenAPI description a block may name as a file of the space. */
const MAX_SPEC_FILE_BYTES = 16 * 1024 * 1024;

/** A file of the space an OpenAPI block names by its `src` (the description kept in the repository). */
export interface SpecFile {
  blobKey: string;
  sha256: string;
}

/**
 * The operations GitBook's OpenAPI blocks of one body name (`RenderPlan.operations`, keys of
 * `operationKey`: spec or `src`, path, method). A block names a spec of the organization by slug
 * (`{% openapi-operation spec="petstore" %}`, or a legacy `{% openapi src="petstore" %}`), or, in a
 * legacy block, by the URL the spec is fetched from (`{% openapi src="https://…/openapi.yaml" %}`), or
 * a description kept as a file of the space (`{% swagger src="../.gitbook/assets/openapi.yaml" %}`,
 * found by `specFile`: JSON or YAML, its internal `$ref`s followed). A block whose spec is unknown,
 * unprocessed, unreadable or not found gets no entry (readers see its method and path).
 */
export async function evaluateOperationBlocks(
  app: AppContext,
  orgId: string,
  keys: readonly string[],
  specFile?: (src: string) => SpecFile | null,
): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for (const key of keys.slice(0, MAX_OPERATION_BLOCKS)) {
    const [named, path, method] = key.split('\n');
    if (!named || !path || named.length > 2048) continue;
    const part: ReferenceOptions['part'] = { doc: 'operation', page: path, method: method || 'get' };
    const file = !/^https?:\/\//i.test(named) && specFile ? specFile(named) : null;
    if (file) {
      const markdown = await renderFileReference(app, file, { part });
      if (markdown !== null) out.push([key, markdown]);
      continue;
    }
    // A legacy block's `src` may be the URL the spec is fetched from.
    const spec = /^https?:\/\//i.test(named) ? await specSlugBySourceUrl(app.db, orgId, named) : /[/:]/.test(named) ? null : named;
    if (!spec) continue;
    const latest = await latestVersionBlob(app.db, orgId, spec);
    if (!latest) continue;
    out.push([key, await renderReference(app, spec, latest.blobKey, { part })]);
  }
  return out;
}

/**
 * A reference part of a description kept as a file of the space (immutable: keyed by its hash),
 * parsed as JSON or YAML on the Markdown pool's threads; null when the file is missing, too large
 * or not a description.
 */
function renderFileReference(app: AppContext, file: SpecFile, options: ReferenceOptions): Promise<string | null> {
  const rendered = cachedRender(`file:${file.sha256}\n${JSON.stringify(options)}`, async () => {
    const bytes = await app.blobs.get(file.blobKey);
    if (!bytes || bytes.length > MAX_SPEC_FILE_BYTES) return { markdown: '', keep: false };
    const out = await app.markdown.openapiReference(bytes.toString('utf8'), options, { text: true });
    return { markdown: out.markdown, keep: !out.timedOut };
  });
  return rendered.then((m) => m || null);
}
