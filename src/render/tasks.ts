// The Markdown work on user content, as plain functions of plain data, so that it can run on the
// worker threads of src/render/pool.ts (or inline for tiny inputs). Each body goes through three
// gates before any recursive converter sees it:
//   1. scanMarkdown (src/content/limits.ts): linear, no parsing;
//   2. parsing (micromark), then checkTree: the exact depth and size of the parsed tree;
//   3. the conversion itself, any error of which is caught.
// A body stopped at any gate is handled as plain text (src/render/plain.ts) and the output says why.
import { LIMITS, checkDocument, checkTree, scanMarkdown, type LimitViolation } from '../content/limits.js';
import { documentToMarkdown, headings, markdownToDocument, pageLinks, splitSections } from '../content/markdown.js';
import type { HeadingInfo, JSONDocument, PageLink, Section } from '../content/markdown.js';
import { knowParsed, parseExtended, type Parsed } from '../content/markdown/parse.js';
import { needsScan, simpleSections } from '../content/markdown/simple-sections.js';
import { diff3Merge } from 'node-diff3';
import YAML from 'yaml';
import { parseRepository, RepoFormatError, type ParsedRepository } from '../git/format.js';
import { pageBodyHtml, renderPlan, type AttachmentRef, type ImageSource, type RenderPlan } from './html.js';
import { plainDocument, plainHtml, plainSections } from './plain.js';
import { openapiReferenceMarkdown, type ReferenceOptions } from '../content/openapi-render.js';

/** Bounds of a parsed tree that passed the scan (which bounds nesting well below these). */
const TREE_DEPTH = 4 * LIMITS.depth + 16;
const TREE_NODES = 4 * LIMITS.nodes;

export type BodyOp = 'document' | 'documentJson' | 'sections' | 'headings' | 'links' | 'plan' | 'html';

export interface HtmlLookups {
  anchor: string;
  images: [string, ImageSource][];
  links: [string, string | null][];
  files: [string, AttachmentRef | null][];
  /** Evaluated OpenAPI blocks: `operationKey` -> the operation's Markdown. */
  operations?: [string, string][];
}

export type MarkdownTask =
  /**
   * `plain`: skip parsing, give the plain-text form with this reason (after a time-out).
   * `withParsed`: give the parse too (BodyOutput.parsed), for an `html` task on the same body.
   */
  | { op: Exclude<BodyOp, 'html'>; md: string; plain?: string; withParsed?: true }
  /** `parsed`: the parse a `withParsed` task gave of this very body (not parsed again). */
  | ({ op: 'html'; md: string; plain?: string; parsed?: Parsed } & HtmlLookups)
  | { op: 'fromDocument'; doc: unknown; maxChars: number }
  | { op: 'scan'; md: string; maxChars: number }
  | { op: 'batch'; tasks: MarkdownTask[] }
  /** Line-based three-way merge of a page's text (change request merges). */
  | { op: 'diff3'; base: string; ours: string; theirs: string }
  /** An OpenAPI description (bundled, as JSON text; with `text`, JSON or YAML as written) → the Markdown of its reference page. */
  | { op: 'openapi'; json: string; options: ReferenceOptions; text?: true }
  /** A docs repository's files (Markdown and `.gitbook.yaml`; others empty) → its page tree (src/git/format). */
  | { op: 'repository'; files: Map<string, Uint8Array> }
  /** Nothing: the answer says a thread is up (its start-up is not counted in any time limit). */
  | { op: 'ping' };

export interface BodyValues {
  document: JSONDocument;
  /** The document as JSON text: a large one crosses threads and reaches the response as one string. */
  documentJson: string;
  sections: Section[];
  headings: HeadingInfo[];
  links: PageLink[];
  plan: RenderPlan;
  html: string;
}

/** A body op's output; `plain` says why the body was handled as plain text. */
export interface BodyOutput<K extends BodyOp = BodyOp> {
  value: BodyValues[K];
  plain?: string;
  /** The body's parse (asked with `withParsed`, and the body was within the limits). */
  parsed?: Parsed;
}

export type FromDocumentOutput = { markdown: string } | { violation: LimitViolation };

export type MergeOutput = { merged: string } | { conflict: string };

/** A parsed repository, or why it is not a docs repository (RepoFormatError's message). */
export type RepositoryOutput = { parsed: ParsedRepository } | { formatError: string } | { timedOut: true };

export type TaskOutput = BodyOutput | FromDocumentOutput | MergeOutput | RepositoryOutput | LimitViolation | string | null | TaskOutput[];

export function runTask(task: MarkdownTask): TaskOutput {
  switch (task.op) {
    case 'ping':
      return null;
    case 'repository':
      return repository(task.files);
    case 'batch':
      return task.tasks.map(runTask);
    case 'scan':
      return scanMarkdown(task.md, task.maxChars);
    case 'fromDocument':
      return fromDocument(task.doc, task.maxChars);
    case 'openapi':
      return openapiReference(task.json, task.options, task.text === true);
    case 'diff3': {
      const regions = diff3Merge(task.ours.split('\n'), task.base.split('\n'), task.theirs.split('\n'));
      if (regions.some((r) => r.conflict)) return { conflict: 'both sides changed the same lines of the page' };
      return { merged: regions.flatMap((r) => r.ok ?? []).join('\n') };
    }
    default:
      return runBody(task);
  }
}

function openapiReference(json: string, options: ReferenceOptions, text: boolean): string {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch (err) {
    if (!text) return `> The stored OpenAPI description could not be read (${(err as Error).message}).\n`;
    // A description as written in a repository: YAML (JSON failed), aliases bounded.
    try {
      doc = YAML.parse(json, { maxAliasCount: 1000, logLevel: 'error' });
    } catch {
      return '';
    }
  }
  if (text && !isDescription(doc)) return '';
  return openapiReferenceMarkdown(doc, options);
}

function repository(files: Map<string, Uint8Array>): RepositoryOutput {
  // Bytes cross threads as Uint8Array views: the same memory seen as Buffers again.
  const buffers = new Map([...files].map(([k, v]) => [k, Buffer.from(v.buffer, v.byteOffset, v.byteLength)]));
  try {
    return { parsed: parseRepository(buffers) };
  } catch (err) {
    if (err instanceof RepoFormatError) return { formatError: err.message };
    throw err;
  }
}

function isDescription(doc: unknown): boolean {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return false;
  const d = doc as Record<string, unknown>;
  return (typeof d.openapi === 'string' || typeof d.swagger === 'string') && typeof d.paths === 'object';
}

/** Why a body cannot be parsed and converted safely, or undefined when it can. */
function refusal(md: string): string | undefined {
  const scanned = scanMarkdown(md, LIMITS.pageChars);
  if (scanned) return `it exceeds the content limits (${scanned.message})`;
  const { root, full } = parseExtended(md);
  const tree = checkTree(root, TREE_DEPTH, TREE_NODES) ?? (full !== root ? checkTree(full, TREE_DEPTH, TREE_NODES) : null);
  return tree ? `it exceeds the content limits once parsed (${tree.message})` : undefined;
}

function parsedValue(task: Extract<MarkdownTask, { op: BodyOp }>): BodyValues[BodyOp] {
  switch (task.op) {
    case 'document':
      return markdownToDocument(task.md);
    case 'documentJson':
      return JSON.stringify(markdownToDocument(task.md));
    case 'sections':
      return splitSections(task.md);
    case 'headings':
      return headings(task.md);
    case 'links':
      return pageLinks(task.md);
    case 'plan':
      return renderPlan(task.md);
    case 'html':
      return pageBodyHtml(task.md, {
        anchor: task.anchor,
        images: new Map(task.images),
        links: new Map(task.links),
        files: new Map(task.files),
        operations: new Map(task.operations ?? []),
      });
  }
}

/** The plain-text form of a body op (linear, bounded). */
export function plainValue(task: Extract<MarkdownTask, { op: BodyOp }>, reason: string): BodyValues[BodyOp] {
  switch (task.op) {
    case 'document':
      return plainDocument(task.md);
    case 'documentJson':
      return JSON.stringify(plainDocument(task.md));
    case 'sections':
      return plainSections(task.md);
    case 'headings':
    case 'links':
      return [];
    case 'plan':
      return { images: [], links: [], files: [], operations: [] };
    case 'html':
      return plainHtml(task.md, reason);
  }
}

function runBody(task: Extract<MarkdownTask, { op: BodyOp }>): BodyOutput {
  // The plan task of this body parsed it already (on whichever thread): checked and converted
  // from that parse, not parsed again.
  if (task.op === 'html' && task.parsed && !task.plain) knowParsed(task.md, task.parsed);
  let reason = task.plain;
  if (task.op === 'sections' && !reason) {
    // The plainest bodies (most pages of most spaces) are split without the parser; what they
    // give is what the parse would (src/content/markdown/simple-sections.ts), within the same limits.
    const simple = simpleSections(task.md);
    if (simple && (!needsScan(task.md) || !scanMarkdown(task.md, LIMITS.pageChars))) return { value: simple };
  }
  if (!reason && task.md.trim() !== '') {
    try {
      reason = refusal(task.md);
    } catch (err) {
      reason = `it could not be parsed (${(err as Error).message})`;
    }
  }
  if (!reason) {
    try {
      const value = parsedValue(task);
      return task.op !== 'html' && task.withParsed && task.md.trim() !== '' ? { value, parsed: parseExtended(task.md) } : { value };
    } catch (err) {
      reason = `it could not be converted (${(err as Error).message})`;
    }
  }
  return { value: plainValue(task, reason), plain: reason };
}

/** A JSON document given on write → its Markdown, or the first limit or shape rule it breaks. */
function fromDocument(doc: unknown, maxChars: number): FromDocumentOutput {
  const checked = checkDocument(doc);
  if (checked) return { violation: checked };
  let markdown: string;
  try {
    markdown = documentToMarkdown(doc as JSONDocument);
  } catch (err) {
    return { violation: { limit: 'shape', path: '', message: `not a document this server can read (${(err as Error).message})` } };
  }
  const scanned = scanMarkdown(markdown, maxChars);
  return scanned ? { violation: { ...scanned, message: `as Markdown, ${scanned.message}`, path: '' } } : { markdown };
}
