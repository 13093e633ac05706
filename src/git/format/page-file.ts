// One page file: optional YAML front matter (page metadata), the title heading, the body.
//
//   ---
//   description: What this page is about
//   icon: book
//   layout:
//     width: wide
//     title:
//       visible: true
//   ---
//
//   # Title
//
//   Body...
//
// Layout options are booleans in the API (`title: true`) and `{visible: ...}` objects in GitBook's
// front matter (`title: {visible: true}`); the cover's `cover`/`coverSize`/`coverMask` become
// `cover: {visible, size, mask}`. Other front matter keys (e.g. GitBook's `coverY`) are kept as they are and written back on export.
import type { Heading } from 'mdast';
import { toMarkdown } from 'mdast-util-to-markdown';
import { toString } from 'mdast-util-to-string';
import { parse } from 'yaml';
import { parseMarkdown } from '../../content/markdown.js';
import { scanMarkdown } from '../../content/limits.js';
import { RepoFormatError } from './errors.js';
import type { ExportPage, PageMeta } from './types.js';
import { dumpYaml } from './yaml.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Layout keys in the order GitBook writes them; others follow alphabetically. */
const LAYOUT_ORDER = [
  'width',
  'cover',
  'title',
  'description',
  'tableOfContents',
  'outline',
  'pagination',
  'metadata',
  'tags',
  'actions',
  'anchors',
];
/** API layout keys in their canonical order (cover options beside the cover). */
const API_LAYOUT_ORDER = [
  'width',
  'cover',
  'coverSize',
  'coverMask',
  'title',
  'description',
  'tableOfContents',
  'outline',
  'pagination',
  'metadata',
  'tags',
  'actions',
  'anchors',
];

function ordered(obj: Record<string, unknown>, order: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of order) if (obj[k] !== undefined) out[k] = obj[k];
  for (const k of Object.keys(obj)
    .filter((k) => !order.includes(k))
    .sort())
    if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}

/** Text as the format layer reads it: UTF-8, no byte order mark, LF line endings. */
export function decodeText(content: Buffer): string {
  return content
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n');
}

/** Collapses whitespace runs to single spaces and trims: how titles are compared and stored. */
export function cleanTitle(title: string): string {
  return title.replace(/\s+/g, ' ').trim();
}

const stripBlankLines = (s: string) => s.replace(/^(?:[ \t]*\n)+/, '');

/** A `key: value` line whose value YAML (core schema) reads as that very string. */
const SIMPLE_PAIR = /^([A-Za-z][A-Za-z0-9_-]*): ([A-Za-z][A-Za-z0-9 ,.'()?!/_-]*[A-Za-z0-9.)?!/_-]|[A-Za-z])$/;
/** Words a plain scalar reads as something else under some schema (lower-cased; checked as keys and values). */
const NOT_A_STRING = new Set(['null', 'true', 'false', 'yes', 'no', 'on', 'off', 'y', 'n']);

/**
 * Front matter made only of `key: plain text` lines (GitBook's `description: ...` on most pages),
 * read without the YAML parser: the mapping, or null for anything else (the parser reads it).
 * test/unit/git/format-fast-paths.test.ts checks it equal to the parser on the fixtures.
 */
export function simpleFrontMatter(yaml: string): Record<string, string> | null {
  const out: Record<string, string> = {};
  let any = false;
  for (const line of yaml.split('\n')) {
    if (line === '') continue;
    const m = SIMPLE_PAIR.exec(line);
    if (!m || Object.hasOwn(out, m[1]!) || NOT_A_STRING.has(m[1]!.toLowerCase()) || NOT_A_STRING.has(m[2]!.toLowerCase())) return null;
    out[m[1]!] = m[2]!;
    any = true;
  }
  return any ? out : null;
}

/** Splits off YAML front matter (a first line `---` up to a line `---` or `...`). */
function splitFrontMatter(text: string, label: string): { data: Record<string, unknown>; body: string } {
  const open = /^---[ \t]*\n/.exec(text);
  if (!open) return { data: {}, body: text };
  const close = /^(?:---|\.\.\.)[ \t]*$/m;
  const rest = text.slice(open[0].length);
  const m = close.exec(rest);
  if (!m) return { data: {}, body: text };
  const yaml = rest.slice(0, m.index);
  const body = rest.slice(m.index + m[0].length).replace(/^\n/, '');
  let data: unknown = simpleFrontMatter(yaml);
  if (data) return { data: data as Record<string, unknown>, body };
  try {
    data = parse(yaml, { logLevel: 'error' });
  } catch (err) {
    throw new RepoFormatError(`${label}: invalid front matter: ${(err as Error).message.split('\n')[0]}`);
  }
  if (data === null || data === undefined) return { data: {}, body };
  if (!isObject(data)) throw new RepoFormatError(`${label}: front matter must be a mapping of keys to values`);
  return { data, body };
}

function text(data: Record<string, unknown>, key: string, label: string): string | undefined {
  const v = data[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v === '' ? undefined : v;
  if (typeof v === 'number') return String(v);
  throw new RepoFormatError(`${label}: front matter '${key}' must be a string`);
}

/** API layout from GitBook's front matter layout. */
function layoutFromFrontMatter(layout: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(layout)) {
    if (key === 'cover' && isObject(value)) {
      if (value.visible !== undefined) out.cover = value.visible;
      if (value.size !== undefined) out.coverSize = value.size;
      if (value.mask !== undefined) out.coverMask = value.mask;
    } else if (isObject(value) && Object.keys(value).length === 1 && typeof value.visible === 'boolean') {
      out[key] = value.visible;
    } else out[key] = value;
  }
  return ordered(out, API_LAYOUT_ORDER);
}

/** GitBook's front matter layout from an API layout. */
function layoutToFrontMatter(layout: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(layout)) {
    if (value === undefined) continue;
    if (key === 'cover' || key === 'coverSize' || key === 'coverMask') {
      const cover = (out.cover ??= {}) as Record<string, unknown>;
      cover[{ cover: 'visible', coverSize: 'size', coverMask: 'mask' }[key]] = value;
    } else if (typeof value === 'boolean') out[key] = { visible: value };
    else out[key] = value;
  }
  if (isObject(out.cover)) out.cover = ordered(out.cover, ['visible', 'size', 'mask']);
  return ordered(out, LAYOUT_ORDER);
}

/** Page metadata from front matter; a wrong type is a RepoFormatError naming the file and key. */
function metaFromFrontMatter(data: Record<string, unknown>, label: string): PageMeta {
  const meta: PageMeta = {};
  const description = text(data, 'description', label);
  const icon = text(data, 'icon', label);
  const emoji = text(data, 'emoji', label);
  if (description !== undefined) meta.description = description;
  if (icon !== undefined) meta.icon = icon;
  if (emoji !== undefined) meta.emoji = emoji;
  if (data.hidden !== undefined && data.hidden !== null) {
    if (typeof data.hidden !== 'boolean') throw new RepoFormatError(`${label}: front matter 'hidden' must be true or false`);
    if (data.hidden) meta.hidden = true;
  }
  if (data.layout !== undefined && data.layout !== null) {
    if (!isObject(data.layout)) throw new RepoFormatError(`${label}: front matter 'layout' must be a mapping`);
    const layout = layoutFromFrontMatter(data.layout);
    if (Object.keys(layout).length) meta.layout = layout;
  }
  return meta;
}

/** Front matter for page metadata (stable key order), or null when there is none to write. */
function frontMatterFromMeta(meta: PageMeta): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  if (meta.description) out.description = meta.description;
  if (meta.icon) out.icon = meta.icon;
  if (meta.emoji) out.emoji = meta.emoji;
  if (meta.hidden) out.hidden = true;
  if (meta.layout) {
    const layout = layoutToFrontMatter(meta.layout);
    if (Object.keys(layout).length) out.layout = layout;
  }
  return Object.keys(out).length ? out : null;
}

interface ParsedPageFile {
  meta: PageMeta;
  /** Front matter keys other than the page metadata ones (e.g. GitBook's `coverY`), as written. */
  extra?: Record<string, unknown>;
  /** Every front matter key, in the file's order. */
  order: string[];
  /** Text of the leading `# Heading`, when the body starts with one. */
  heading?: string;
  /** The body without front matter (leading blank lines removed). */
  body: string;
  /** The body without front matter and without the leading heading. */
  bodyAfterHeading: string;
}

/**
 * An ATX level-1 heading line whose text is plain (letters, digits, spaces, punctuation that is
 * never Markdown syntax, any non-ASCII character): its title is that text, without parsing.
 */
const PLAIN_ATX_TITLE = /^ {0,3}#[ \t]+([A-Za-z0-9 \t,.:;()'?/+=%@"\u0080-\uFFFF-]*[^\s#\\`*_[\]<>!&~${}|\u0000-\u001F\u007F])[ \t]*$/;

/**
 * The leading level-1 heading of a body: its title and where it ends, or null. Only the first
 * block can be it, and only the text up to the first blank line can belong to it (at most 16 KB: a
 * heading is a line or two), parsed on its own, so a page of any size or shape costs one small
 * parse here (none when that text breaks the content limits). An ATX heading is the first line
 * alone, a setext one needs a `===` underline in the block: neither there, nothing is parsed; a
 * plain `# Title` line is read without a parser (most pages of a large import start with one, and
 * a parser's set-up costs more than the line).
 */
function leadingHeading(body: string): { title: string; end: number } | null {
  const blank = /\n[ \t]*(?:\n|$)/.exec(body);
  let head = body.slice(0, Math.min(blank ? blank.index : body.length, 16 * 1024));
  if (/^ {0,3}#(?:[ \t\n]|$)/.test(head)) {
    const eol = head.indexOf('\n');
    head = eol < 0 ? head : head.slice(0, eol);
    const plain = head.length <= 1024 ? PLAIN_ATX_TITLE.exec(head) : null;
    if (plain) return { title: cleanTitle(plain[1]), end: head.length };
  } else if (!/^ {0,3}=+[ \t]*$/m.test(head)) return null;
  if (scanMarkdown(head)) return null;
  const first = parseMarkdown(head).children[0];
  if (first?.type !== 'heading' || first.depth !== 1 || first.position?.end.offset === undefined) return null;
  return { title: cleanTitle(toString(first)), end: first.position.end.offset };
}

/** Front matter keys mapped to page metadata; others are kept as they are (see `extra`). */
const META_KEYS = new Set(['description', 'icon', 'emoji', 'hidden', 'layout']);

/** Reads a page file: front matter, leading level-1 heading, body. */
export function parsePageFile(content: Buffer, label: string): ParsedPageFile {
  const { data, body: raw } = splitFrontMatter(decodeText(content), label);
  const meta = metaFromFrontMatter(data, label);
  const extraKeys = Object.keys(data).filter((k) => !META_KEYS.has(k));
  const extra = extraKeys.length ? Object.fromEntries(extraKeys.map((k) => [k, data[k]])) : undefined;
  const body = stripBlankLines(raw);
  const first = leadingHeading(body);
  if (first) {
    const rest = stripBlankLines(body.slice(first.end));
    return {
      meta,
      extra,
      order: Object.keys(data),
      heading: first.title,
      body,
      bodyAfterHeading: /^[ \t]*$/.test(rest) ? '' : rest,
    };
  }
  return { meta, extra, order: Object.keys(data), body, bodyAfterHeading: body };
}

/** `# Title` with whatever escaping makes it read back as exactly that text. */
function titleHeading(title: string): string {
  const text = cleanTitle(title);
  // Letters, digits, spaces and punctuation that never needs escaping there: written as it is.
  if (/^[A-Za-z0-9\u0080-\uFFFF][A-Za-z0-9 ,.:;()'?/=%@"\u0080-\uFFFF-]*$/.test(text) && !/\s$/.test(text)) return `# ${text}`;
  const heading: Heading = { type: 'heading', depth: 1, children: [{ type: 'text', value: text }] };
  return toMarkdown(heading).trimEnd();
}

/**
 * The text a page file has (front matter when there is metadata, `# Title`, a blank line, the body),
 * for writing and for comparing with an existing blob. Groups have no file: ''.
 */
export function renderPageFile(page: ExportPage): string {
  return page.type === 'group' ? '' : renderDocument(page);
}

/** The page file of a page with a file (a nested group is exported as a document, see export.ts). */
export function renderDocument(page: ExportPage): string {
  let fm = frontMatterFromMeta(page);
  const extra = Object.entries(page.extraFrontMatter ?? {}).filter(([k, v]) => !META_KEYS.has(k) && v !== undefined);
  if (extra.length) {
    const all: Record<string, unknown> = { ...(fm ?? {}), ...Object.fromEntries(extra) };
    // The keys in the order of the file they came from; new ones after.
    const order = [...(page.frontMatterOrder ?? []).filter((k) => k in all), ...Object.keys(all)];
    fm = Object.fromEntries([...new Set(order)].map((k) => [k, all[k]]));
  }
  let out = fm ? `---\n${dumpYaml(fm)}---\n\n` : '';
  out += `${titleHeading(page.title || 'Untitled')}\n`;
  const body = stripBlankLines(page.markdown ?? '');
  if (body.trim() !== '') out += `\n${body}`;
  return out;
}
