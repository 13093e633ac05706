// Markdown work on user content off the caller's event loop: parsing (micromark) costs ~1-5 ms per
// KB even for ordinary pages and more than linear time for some shapes the limits allow (many
// nested lists, many block quotes), so a 1 MB page holds a thread for seconds. Every parse, JSON
// document, HTML body, search section and link extraction of a body therefore runs here, and so
// does the line-based three-way merge of page texts (quadratic in the lines that differ):
//
// - on MARKDOWN_THREADS worker threads (piscina; src/render/worker.mjs), tasks started one per free
//   thread, each within MARKDOWN_TIMEOUT_MS: past it the thread is stopped (piscina terminates it)
//   and the body is handled as plain text (src/render/plain.ts), as it is when it breaks a limit;
// - inline (on the caller's thread) for tiny inputs, where a thread hop costs more than the work,
//   and for everything when MARKDOWN_THREADS=0 (tools, not servers: no time limit there);
// - with results cached by input (bodies are immutable; the same page is read again and again):
//   a page parses once per process, not once per read. A plain-text result caused by the time limit
//   is kept for a minute only, so that a busy moment does not pin it.
import { createHash } from 'node:crypto';
import { Piscina } from 'piscina';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../log.js';
import { checkDocument, type LimitViolation } from '../content/limits.js';
import type { HeadingInfo, JSONDocument, PageLink, Section } from '../content/markdown.js';
import type { RenderPlan } from './html.js';
import type { Parsed } from '../content/markdown/parse.js';
import type { ReferenceOptions } from '../content/openapi-render.js';
import { RepoFormatError, type ParsedRepository } from '../git/format.js';
import { needsScan, simpleSections } from '../content/markdown/simple-sections.js';
import {
  plainValue,
  runTask,
  type BodyOp,
  type BodyOutput,
  type BodyValues,
  type FromDocumentOutput,
  type HtmlLookups,
  type MarkdownTask,
  type MergeOutput,
  type RepositoryOutput,
  type TaskOutput,
} from './tasks.js';

/** HTML fragments longer than this (images inline) are not kept in the cache. */
const MAX_CACHED_HTML = 1024 * 1024;

/** What each thread runs once at start (MarkdownPool.start), on a page with the common constructs. */
const WARM_UP: BodyOp[] = ['plan', 'html', 'documentJson', 'sections', 'links', 'headings'];
const NO_LOOKUPS: HtmlLookups = { anchor: '', images: [], links: [], files: [] };
const WARM_UP_BODY = [
  '# Getting started',
  '',
  'A paragraph with *emphasis*, **strong**, `code`, a [link](other.md "title") and an ![image](.gitbook/assets/a.png).',
  '',
  '## Steps',
  '',
  '1. First step',
  '   - a nested item with [a link](https://example.com)',
  '   - another one',
  '2. Second step',
  '',
  '> A quote with a line',
  '> and another.',
  '',
  '{% hint style="info" %}',
  'A hint block.',
  '{% endhint %}',
  '',
  '| Column | Other |',
  '| ------ | ----- |',
  '| cell   | `x`   |',
  '',
  '```ts',
  'const x: number = 1;',
  '```',
  '',
  '$$',
  'a^2 + b^2 = c^2',
  '$$',
  '',
  '### Details',
  '',
  '- [x] done',
  '- [ ] to do',
  '',
].join('\n');

/** Inputs up to this many characters are handled on the calling thread. */
const INLINE_CHARS = 512;
/** A batch task carries at most this much text (a time-out then costs a few pages, re-run one by one). */
const BATCH_CHARS = 256 * 1024;
const BATCH_ITEMS = 100;
const CACHE_BYTES = 64 * 1024 * 1024;
const PLAIN_AFTER_TIMEOUT_TTL_MS = 60_000;

interface MarkdownPoolOptions {
  threads: number;
  timeoutMs: number;
  log?: Logger;
}

type CachedOp = Exclude<BodyOp, 'html'>;

export class MarkdownPool {
  private pool: Piscina | undefined;
  private started: Promise<Piscina> | undefined;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly cache = new LRUCache<string, BodyOutput>({
    maxSize: CACHE_BYTES,
    // About the heap each entry takes: its key (the body) and its value (JSON text exactly; a
    // document's objects take an order of magnitude more than its Markdown; the rest is smaller).
    sizeCalculation: (v, k) =>
      k.length * 2 + (typeof v.value === 'string' ? v.value.length * 2 : k.startsWith('document\n') ? k.length * 16 : k.length * 2) + 256,
  });
  /** Bodies whose processing ran out of time lately: every op on them goes straight to plain text. */
  private readonly slow = new LRUCache<string, true>({
    maxSize: CACHE_BYTES,
    sizeCalculation: (_v, k) => k.length * 2 + 64,
    ttl: PLAIN_AFTER_TIMEOUT_TTL_MS,
  });
  private readonly pending = new Map<string, Promise<BodyOutput>>();
  private closed = false;

  constructor(private readonly o: MarkdownPoolOptions) {}

  /** Page body → GitBook JSON document. */
  async document(md: string): Promise<JSONDocument> {
    return (await this.body('document', md)).value;
  }

  /** Page body → GitBook JSON document, as JSON text (no object graph to copy between threads, or to serialize again). */
  async documentJson(md: string): Promise<string> {
    return (await this.body('documentJson', md)).value;
  }

  /** Headings of a body (anchors as the document gives them). */
  async headings(md: string): Promise<HeadingInfo[]> {
    return (await this.body('headings', md)).value;
  }

  /** What rendering a body to HTML needs looked up first. */
  async plan(md: string): Promise<RenderPlan> {
    return (await this.body('plan', md)).value;
  }

  /**
   * `plan`, and the body's parse when it had to be made now: handed to `html` for the same body,
   * the HTML is made from it instead of parsing the body a second time (on whichever thread).
   * The plan is cached as `plan`'s is; the parse is not kept.
   */
  async planParsed(md: string): Promise<{ plan: RenderPlan; parsed?: Parsed }> {
    const hit = this.cache.get(`plan\n${md}`);
    if (hit) return { plan: hit.value as RenderPlan };
    const { value, parsed } = await this.compute({ op: 'plan', md, withParsed: true }, `plan\n${md}`);
    return { plan: value, parsed };
  }

  /**
   * A body as an HTML fragment; `lookups` answers everything `plan` listed. Cached by the body and
   * a digest of the lookups (the fragment is a function of both): an export made again after a
   * few pages changed renders only those. `parsed`: what `planParsed` gave for this very `md`
   * (the fragment is made from it, so it must be that body's).
   */
  async html(md: string, lookups: HtmlLookups, parsed?: Parsed): Promise<string> {
    const digest = createHash('sha256')
      .update(JSON.stringify([lookups.anchor, lookups.images, lookups.links, lookups.files, lookups.operations ?? []]))
      .digest('base64url');
    const key = `html\n${digest}\n${md}`;
    const hit = this.cache.get(key);
    if (hit) return hit.value as string;
    // A fragment carrying large images inline would crowd out everything else.
    return (await this.compute({ op: 'html', md, ...lookups, parsed }, key, (out) => out.value.length <= MAX_CACHED_HTML)).value;
  }

  /**
   * Search sections of many bodies (one array per body, in order). The plainest bodies that need no
   * limits scan (src/content/markdown/simple-sections.ts: at most 6,000 characters, split in linear
   * time without the parser) are split here, without a thread hop; the others go to the threads.
   */
  async sections(mds: readonly string[]): Promise<Section[][]> {
    const out: Section[][] = new Array(mds.length);
    const rest: number[] = [];
    mds.forEach((md, i) => {
      const simple = needsScan(md) ? null : simpleSections(md);
      if (simple) out[i] = simple;
      else rest.push(i);
    });
    if (rest.length) {
      const parsed = await this.many(
        'sections',
        rest.map((i) => mds[i]),
      );
      rest.forEach((i, k) => (out[i] = parsed[k]));
    }
    return out;
  }

  /** Links of many bodies. */
  links(mds: readonly string[]): Promise<PageLink[][]> {
    return this.many('links', mds);
  }

  /**
   * Links of many bodies, null for a body that ran out of time (its `[]` says nothing about it):
   * for a caller that stores links for good (the link index, src/content/links.ts).
   */
  async linksOrTimedOut(mds: readonly string[]): Promise<(PageLink[] | null)[]> {
    const timedOut = this.timeoutReason();
    return (await this.manyOutputs('links', mds)).map((o) => (o.plain === timedOut ? null : (o.value as PageLink[])));
  }

  /** A JSON document given on write → Markdown, or the limit or shape rule it breaks. */
  async fromDocument(doc: unknown, maxChars: number): Promise<FromDocumentOutput> {
    // The shape first, here: iterative and quick, and it stops at the first node too deep, before
    // anything recursive (JSON.stringify, the structured clone to a thread) meets the document.
    const violation = checkDocument(doc);
    if (violation) return { violation };
    const size = JSON.stringify(doc)?.length ?? 0;
    return (await this.run({ op: 'fromDocument', doc, maxChars }, size, () => ({
      violation: { limit: 'size', path: '', message: `too large or complex to convert within ${this.o.timeoutMs} ms` },
    }))) as FromDocumentOutput;
  }

  /** A line-based three-way merge of a page's text; past the time limit, a conflict saying so. */
  async mergeText(base: string, ours: string, theirs: string): Promise<MergeOutput> {
    return (await this.run({ op: 'diff3', base, ours, theirs }, base.length + ours.length + theirs.length, () => ({
      conflict: `both sides changed the page too much to merge its lines within ${this.o.timeoutMs} ms`,
    }))) as MergeOutput;
  }

  /**
   * The Markdown reference page of an OpenAPI description given as JSON text (with `text`, JSON or YAML as written; parsed and rendered
   * on a thread: a large description must not hold the caller's event loop); past the time limit,
   * a notice saying so.
   */
  async openapiReference(
    json: string,
    options: ReferenceOptions,
    how: { text?: true } = {},
  ): Promise<{ markdown: string; timedOut?: true }> {
    let timedOut = false;
    const markdown = (await this.run({ op: 'openapi', json, options, ...how }, json.length, () => {
      timedOut = true;
      return `> This OpenAPI reference could not be rendered within ${this.o.timeoutMs} ms.\n`;
    })) as string;
    return timedOut ? { markdown, timedOut } : { markdown };
  }

  /**
   * A docs repository's page tree (src/git/format's parseRepository) read on a thread: a large
   * repository must not hold the caller's event loop (a worker's lock renewals, the API). Within
   * `timeoutMs` (git's time limit, not the Markdown one); a RepoFormatError comes back as such.
   */
  async repository(files: Map<string, Buffer>, timeoutMs: number): Promise<ParsedRepository> {
    let size = 0;
    for (const b of files.values()) size += b.length;
    const out = (await this.run({ op: 'repository', files }, size, () => ({ timedOut: true }), timeoutMs)) as RepositoryOutput;
    if ('timedOut' in out) throw new Error(`reading the repository took longer than ${timeoutMs} ms`);
    if ('formatError' in out) throw new RepoFormatError(out.formatError);
    // Files come back as Uint8Array views: Buffers again for the callers.
    for (const f of out.parsed.files) f.content = Buffer.from(f.content.buffer, f.content.byteOffset, f.content.byteLength);
    return out.parsed;
  }

  /** The first limit a Markdown body breaks, or null (src/content/limits.ts). */
  async scan(md: string, maxChars: number): Promise<LimitViolation | null> {
    return (await this.run({ op: 'scan', md, maxChars }, md.length, () => ({
      limit: 'size',
      message: `too large to check within ${this.o.timeoutMs} ms`,
    }))) as LimitViolation | null;
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = undefined;
    if (pool) await pool.destroy();
  }

  // ---- internals ------------------------------------------------------------------------------

  private timeoutReason(): string {
    return `it could not be processed within ${this.o.timeoutMs} ms`;
  }

  private body<K extends CachedOp>(op: K, md: string): Promise<BodyOutput<K>> {
    const key = `${op}\n${md}`;
    const hit = this.cache.get(key);
    if (hit) return Promise.resolve(hit as BodyOutput<K>);
    // Readers of the same body at the same time share one task.
    let pending = this.pending.get(key);
    if (!pending) {
      pending = this.compute({ op, md } as Extract<MarkdownTask, { op: BodyOp }> & { op: K }, key).finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    return pending as Promise<BodyOutput<K>>;
  }

  /** Run a body op (unless its body is known to be slow) and remember its output under `key` if `keep` says so. */
  private async compute<K extends BodyOp>(
    task: Extract<MarkdownTask, { op: BodyOp }> & { op: K },
    key: string,
    keep: (out: BodyOutput<K>) => boolean = () => true,
  ): Promise<BodyOutput<K>> {
    const { md } = task;
    if (this.slow.has(md)) {
      const reason = this.timeoutReason();
      return { value: plainValue(task, reason), plain: reason } as BodyOutput<K>;
    }
    let timedOut = false;
    const out = (await this.run(task, md.length, () => {
      timedOut = true;
      this.slow.set(md, true);
      const reason = this.timeoutReason();
      return { value: plainValue(task, reason), plain: reason };
    })) as BodyOutput<K>;
    if (keep(out)) this.remember(key, out, timedOut);
    return out;
  }

  private remember(key: string, out: BodyOutput, timedOut: boolean) {
    // A parse given along (planParsed) is for the caller at hand, never kept.
    const kept = out.parsed ? { value: out.value, ...(out.plain ? { plain: out.plain } : {}) } : out;
    this.cache.set(key, kept, timedOut ? { ttl: PLAIN_AFTER_TIMEOUT_TTL_MS } : undefined);
  }

  /** One op over many bodies: cached ones answered at once, the rest in batches. */
  private async many<K extends 'sections' | 'links'>(op: K, mds: readonly string[]): Promise<BodyValues[K][]> {
    return (await this.manyOutputs(op, mds)).map((o) => o.value as BodyValues[K]);
  }

  /** `many` with each body's whole output (its value, and `plain` when it was handled as plain text). */
  private async manyOutputs(op: 'sections' | 'links', mds: readonly string[]): Promise<BodyOutput[]> {
    const out: BodyOutput[] = new Array(mds.length);
    const todo: number[] = [];
    mds.forEach((md, i) => {
      const hit = this.cache.get(`${op}\n${md}`);
      if (hit) out[i] = hit;
      else todo.push(i);
    });
    const batches: number[][] = [];
    let batch: number[] = [];
    let chars = 0;
    for (const i of todo) {
      if (batch.length && (chars + mds[i].length > BATCH_CHARS || batch.length >= BATCH_ITEMS)) {
        batches.push(batch);
        batch = [];
        chars = 0;
      }
      batch.push(i);
      chars += mds[i].length;
    }
    if (batch.length) batches.push(batch);
    await Promise.all(
      batches.map(async (items) => {
        const results =
          items.length === 1
            ? [await this.body(op, mds[items[0]])]
            : ((await this.run({ op: 'batch', tasks: items.map((i) => ({ op, md: mds[i] })) }, chars, () => null)) as BodyOutput[] | null);
        if (results) {
          items.forEach((i, j) => {
            out[i] = results[j];
            this.remember(`${op}\n${mds[i]}`, results[j], false);
          });
        } else {
          // The batch ran out of time: each body again on its own, so only the slow one is plain.
          const each = await Promise.all(items.map((i) => this.body(op, mds[i])));
          items.forEach((i, j) => (out[i] = each[j]));
        }
      }),
    );
    return out;
  }

  /**
   * Run a task inline (tiny, or no threads) or on a thread within the time limit; `onTimeout`
   * gives the result when the thread had to be stopped (time-out, or the thread died: out of memory).
   */
  private async run(task: MarkdownTask, size: number, onTimeout: () => TaskOutput, timeoutMs = this.o.timeoutMs): Promise<TaskOutput> {
    // A tiny body with a code block still goes to a thread: a language's first highlight compiles its grammar.
    const code = task.op === 'html' && /```|~~~/.test(task.md);
    if (this.o.threads === 0 || (size <= INLINE_CHARS && !code)) return runTask(task);
    if (this.closed) throw new Error('The Markdown pool is closed');
    const pool = await this.threads();
    await this.acquire();
    const started = performance.now();
    try {
      return await pool.run(task, { signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      const e = err as Error & { code?: string };
      if (e.name !== 'AbortError' && e.code !== 'ERR_WORKER_OUT_OF_MEMORY') throw err;
      this.o.log?.warn(
        { op: task.op, chars: size, ms: Math.round(performance.now() - started), reason: e.code ?? 'timeout' },
        'markdown task stopped; handled as plain text',
      );
      // The stopped thread is replaced; its slot is given back once the new one is up, so that
      // its start-up is not counted in the next task's time limit.
      await pool.run({ op: 'ping' }).catch(() => {});
      return onTimeout();
    } finally {
      this.release();
    }
  }

  /**
   * Start the threads now rather than on first use, and warm each one with a page (an API or a
   * worker process at start-up: its first render or import does not wait for the threads to load
   * their modules and compile the parser). No-op without threads.
   */
  async start(): Promise<void> {
    if (this.o.threads > 0 && !this.closed) await this.threads();
  }

  /** The threads, started (and up) on first use; kept while the process lives. */
  private threads(): Promise<Piscina> {
    this.started ??= (async () => {
      const pool = new Piscina({
        filename: new URL('./worker.mjs', import.meta.url).href,
        minThreads: this.o.threads,
        maxThreads: this.o.threads,
        idleTimeout: Infinity,
        // A hostile body must not take the process's memory with it: the thread dies instead.
        resourceLimits: { maxOldGenerationSizeMb: 1024 },
      });
      this.pool = pool;
      await Promise.all(Array.from({ length: this.o.threads }, () => pool.run({ op: 'ping' })));
      // Then one warm-up task per thread: a thread's first parse and render of a page (code loaded
      // lazily by the engine, functions compiled on first use) took seconds where the next took
      // milliseconds; a reader or import should not pay it. Its results are not kept.
      const warm: MarkdownTask = {
        op: 'batch',
        tasks: WARM_UP.map((op) => (op === 'html' ? { op, md: WARM_UP_BODY, ...NO_LOOKUPS } : { op, md: WARM_UP_BODY })),
      };
      await Promise.all(Array.from({ length: this.o.threads }, () => pool.run(warm))).catch((err) =>
        this.o.log?.warn({ err }, 'Markdown pool warm-up failed (the pool works; its first tasks are slower)'),
      );
      return pool;
    })();
    return this.started;
  }

  /** One task per thread at a time, so the time limit counts running time, never time in a queue. */
  private acquire(): Promise<void> {
    if (this.running < this.o.threads) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release() {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}
