// Cut a page's markdown into translatable segments and put translations back, byte for byte
// everywhere else.
//
// The page markdown is parsed (GFM + math) only to find *where* prose is: the ranges of the inline
// content of paragraphs, headings and table cells, found by walking an allow-list of containers
// (root, blockquote, list, list item, table, row, footnote definition). Every other node (code,
// HTML, math, definitions, thematic breaks, anything a future extension adds) is never visited and
// stays byte-identical, as does everything between the ranges. GitBook block tag lines
// (`{% hint %}`, `{% tabs %}`, `{% endtab %}`, ...) are masked with spaces before parsing so they
// split paragraphs and never reach a provider; the `title="..."` of a few block tags (tab,
// expandable, step) becomes a plain segment of its own.
//
// Inside a range, a segment is text with placeholders: formatting and links are paired tags
// `<g id="n">…</g>` (their markdown syntax, URL included, is kept aside and restored from the map),
// and everything a provider must not touch (inline code, inline HTML, inline math, `{{ … }}`
// expressions, `{% … %}` tags, autolinks, footnote references) is a self-closing `<x id="n"/>`.
// Text is XML-escaped (`&amp; &lt; &gt;`) so tags are unambiguous. `rebuild` checks that a
// translation carries exactly the same placeholders, properly nested, and rebuilds the markdown.
import type { Nodes, Parents, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { mathFromMarkdown } from 'mdast-util-math';
import { gfm } from 'micromark-extension-gfm';
import { math } from 'micromark-extension-math';

/** One translatable piece of a page. */
export interface Unit {
  /** Source range [start, end) replaced by the rebuilt translation. */
  start: number;
  end: number;
  /** Text sent to a provider (placeholders included). */
  text: string;
  /** Placeholders: id -> markdown kept aside. */
  x: Map<number, string>;
  g: Map<number, { open: string; close: string }>;
  /** 'inline': markdown escaping applies on rebuild; 'attr': a double-quoted tag attribute value; 'plain': a page field. */
  kind: 'inline' | 'attr' | 'plain';
}

const TAG_LINE = /^[ \t]*\{%-?\s*(\/?[A-Za-z][\w-]*)([^%]|%(?!\}))*-?%\}[ \t]*$/;
const TITLE_ATTR = /\btitle\s*=\s*"([^"\n]*)"/;
const TITLED_TAGS = new Set(['tab', 'expandable', 'step', 'stepper', 'details']);
const CONTAINERS = new Set(['root', 'blockquote', 'list', 'listItem', 'table', 'tableRow', 'footnoteDefinition']);
const UNITS = new Set(['paragraph', 'heading', 'tableCell']);
/** Inline tokens of text that are never sent: expressions and inline block tags. */
const PROTECTED_IN_TEXT = /\{\{[\s\S]{0,1000}?\}\}|\{%[\s\S]{0,1000}?%\}/g; // bounded: linear on unclosed openers

function parse(md: string): Root {
  return fromMarkdown(md, { extensions: [gfm(), math()], mdastExtensions: [gfmFromMarkdown(), mathFromMarkdown()] });
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function unescapeXml(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/gi, (all, e: string) => {
    const l = e.toLowerCase();
    if (l === 'amp') return '&';
    if (l === 'lt') return '<';
    if (l === 'gt') return '>';
    if (l === 'quot') return '"';
    if (l === 'apos') return "'";
    const n = l.startsWith('#x') ? parseInt(l.slice(2), 16) : parseInt(l.slice(1), 10);
    return Number.isFinite(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : all;
  });
}

/** Lines (0-based) covered by code and HTML blocks, where `{% %}` is literal text. */
function protectedLines(root: Root): Set<number> {
  const lines = new Set<number>();
  const todo: Nodes[] = [root];
  while (todo.length) {
    const n = todo.pop()!;
    if ((n.type === 'code' || n.type === 'html' || n.type === 'math') && n.position) {
      for (let l = n.position.start.line; l <= n.position.end.line; l++) lines.add(l - 1);
    }
    if ('children' in n) todo.push(...(n.children as Nodes[]));
  }
  return lines;
}

interface Masked {
  masked: string;
  /** Units for block titles found on the masked tag lines. */
  titles: Unit[];
}

/** Replace each GitBook block tag line (outside code/HTML) by spaces of the same length. */
function maskTagLines(md: string): Masked {
  if (!md.includes('{%')) return { masked: md, titles: [] };
  const prot = protectedLines(parse(md));
  const lines = md.split('\n');
  const titles: Unit[] = [];
  let offset = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const m = !prot.has(i) ? TAG_LINE.exec(line.replace(/\r$/, '')) : null;
    if (m) {
      const t = TITLE_ATTR.exec(line);
      if (t && TITLED_TAGS.has(m[1].toLowerCase()) && /\p{L}/u.test(t[1])) {
        const start = offset + t.index + t[0].indexOf('"') + 1;
        titles.push({ start, end: start + t[1].length, text: escapeXml(t[1]), x: new Map(), g: new Map(), kind: 'attr' });
      }
      lines[i] = line.replace(/[^\r]/g, ' ');
    }
    offset += line.length + 1;
  }
  return { masked: lines.join('\n'), titles };
}

/** Serialize inline children into a segment with placeholders. */
class InlineWriter {
  text = '';
  readonly x = new Map<number, string>();
  readonly g = new Map<number, { open: string; close: string }>();
  private next = 1;

  constructor(private readonly src: string) {}

  private slice(n: Nodes): string {
    return this.src.slice(n.position!.start.offset!, n.position!.end.offset!);
  }

  private placeholder(raw: string) {
    const id = this.next++;
    this.x.set(id, raw);
    this.text += `<x id="${id}"/>`;
  }

  private pair(open: string, close: string, inner: () => void) {
    const id = this.next++;
    this.g.set(id, { open, close });
    this.text += `<g id="${id}">`;
    inner();
    this.text += '</g>';
  }

  private plain(value: string) {
    let last = 0;
    for (const m of value.matchAll(PROTECTED_IN_TEXT)) {
      this.text += escapeXml(value.slice(last, m.index));
      this.placeholder(m[0]);
      last = m.index! + m[0].length;
    }
    this.text += escapeXml(value.slice(last));
  }

  /** Children of `parent` between its own open and close syntax; gaps between children are kept as placeholders. */
  children(parent: Parents) {
    const kids = parent.children as Nodes[];
    for (let i = 0; i < kids.length; i++) {
      if (i > 0) {
        const gap = this.src.slice(kids[i - 1].position!.end.offset!, kids[i].position!.start.offset!);
        if (gap) this.placeholder(gap);
      }
      this.node(kids[i]);
    }
  }

  node(n: Nodes) {
    if (!n.position || n.position.start.offset === undefined) return;
    const raw = this.slice(n);
    switch (n.type) {
      case 'text':
        // Text whose source differs from its value only by escapes and entities is rebuilt from the value.
        this.plain(n.value);
        return;
      case 'emphasis':
      case 'strong':
      case 'delete':
      case 'link':
      case 'linkReference': {
        const kids = n.children as Nodes[];
        // Autolinks (`<https://…>`, bare URLs) and empty labels are never sent.
        if (!kids.length || ((n.type === 'link' || n.type === 'linkReference') && !raw.startsWith('['))) {
          this.placeholder(raw);
          return;
        }
        const first = kids[0].position!.start.offset!;
        const last = kids[kids.length - 1].position!.end.offset!;
        const s = n.position.start.offset!;
        const e = n.position.end.offset!;
        this.pair(this.src.slice(s, first), this.src.slice(last, e), () => this.children(n as Parents));
        return;
      }
      case 'image':
      case 'imageReference': {
        // The alt text travels between `![` and `]…`; everything after it (URL, title) is kept aside.
        const alt = n.alt ?? '';
        if (alt && raw.startsWith('![') && raw.slice(2, 2 + alt.length) === alt && raw[2 + alt.length] === ']') {
          this.pair('![', raw.slice(2 + alt.length), () => this.plain(alt));
          return;
        }
        this.placeholder(raw);
        return;
      }
      default:
        // inlineCode, html, inlineMath, break, footnoteReference and anything unknown.
        this.placeholder(raw);
    }
  }
}

/** Segments of a page body, in source order. Pages with no prose give none. */
export function segmentMarkdown(md: string): Unit[] {
  const { masked, titles } = maskTagLines(md);
  const root = parse(masked);
  const units: Unit[] = [...titles];
  const todo: Nodes[] = [root];
  while (todo.length) {
    const n = todo.pop()!;
    if (UNITS.has(n.type)) {
      const kids = (n as Parents).children as Nodes[];
      if (!kids.length || !kids[0].position) continue;
      const w = new InlineWriter(masked);
      w.children(n as Parents);
      if (!hasProse(w.text)) continue;
      units.push({
        start: kids[0].position.start.offset!,
        end: kids[kids.length - 1].position!.end.offset!,
        text: w.text,
        x: w.x,
        g: w.g,
        kind: 'inline',
      });
      continue;
    }
    if (CONTAINERS.has(n.type) && 'children' in n) for (const c of n.children as Nodes[]) todo.push(c);
  }
  return units.sort((a, b) => a.start - b.start);
}

/** A plain-text segment (title, description): no markdown, no placeholders. */
export function plainUnit(text: string): Unit {
  return { start: 0, end: text.length, text: escapeXml(text), x: new Map(), g: new Map(), kind: 'plain' };
}

/** Whether a segment has any letter outside its placeholders (numbers and punctuation alone are not sent). */
export function hasProse(segment: string): boolean {
  return /\p{L}/u.test(segment.replace(/<[^>]*>/g, ''));
}

/** The text of a segment without placeholders, for word counts. */
export function segmentWords(segment: string): string {
  return unescapeXml(segment.replace(/<[^>]*>/g, ' '));
}

export class PlaceholderMismatch extends Error {}

type Token = { t: 'text'; v: string } | { t: 'x'; id: number } | { t: 'open'; id: number } | { t: 'close' };

// Any tag-like run, bounded (linear scan); what it holds is then read strictly.
const TAG = /<[^<>]{0,80}>/g;
const X_TAG = /^x\s+id\s*=\s*["']?(\d+)["']?\s*\/?$/i;
const G_OPEN = /^g\s+id\s*=\s*["']?(\d+)["']?\s*$/i;

function tokenize(s: string): Token[] {
  const out: Token[] = [];
  let last = 0;
  for (const m of s.matchAll(TAG)) {
    if (m.index! > last) out.push({ t: 'text', v: s.slice(last, m.index) });
    last = m.index! + m[0].length;
    const inner = m[0].slice(1, -1).trim();
    let id: RegExpExecArray | null;
    if (/^\/\s*g$/i.test(inner)) out.push({ t: 'close' });
    else if (/^\/\s*x$/i.test(inner))
      continue; // `<x id="1"></x>`: the closing half of an x written as a pair
    else if ((id = X_TAG.exec(inner))) out.push({ t: 'x', id: Number(id[1]) });
    else if ((id = G_OPEN.exec(inner))) out.push({ t: 'open', id: Number(id[1]) });
    else throw new PlaceholderMismatch(`unexpected tag ${m[0]}`);
  }
  if (last < s.length) out.push({ t: 'text', v: s.slice(last) });
  return out;
}

/** Backslash-escape what markdown would read as syntax in translated text. */
function escapeMarkdown(s: string): string {
  return s
    .replace(/\r?\n/g, ' ')
    .replace(/[\\`*_[\]<>|~!#&{}$]/g, (c) => `\\${c}`)
    .replace(/^(\s*)([-+]|\d+[.)])(?=\s)/, (_a, ws: string, mark: string) => `${ws}${mark.replace(/[-+.)]$/, (c) => `\\${c}`)}`);
}

/**
 * The markdown of a unit's translation: placeholders checked (same ids, each once, pairs nested)
 * and replaced by what they stand for. Throws PlaceholderMismatch when the translation broke them.
 */
export function rebuild(unit: Unit, translated: string): string {
  const tokens = tokenize(translated);
  const seenX = new Set<number>();
  const seenG = new Set<number>();
  const stack: number[] = [];
  let out = '';
  for (const tok of tokens) {
    if (tok.t === 'text') {
      const v = unescapeXml(tok.v);
      if (unit.kind === 'inline') out += escapeMarkdown(v);
      else out += (unit.kind === 'attr' ? v.replace(/"/g, "'") : v).replace(/\r?\n/g, ' ');
    } else if (tok.t === 'x') {
      const raw = unit.x.get(tok.id);
      if (raw === undefined || seenX.has(tok.id)) throw new PlaceholderMismatch(`unknown or repeated <x id="${tok.id}"/>`);
      seenX.add(tok.id);
      out += raw;
    } else if (tok.t === 'open') {
      const pair = unit.g.get(tok.id);
      if (!pair || seenG.has(tok.id)) throw new PlaceholderMismatch(`unknown or repeated <g id="${tok.id}">`);
      seenG.add(tok.id);
      stack.push(tok.id);
      out += pair.open;
    } else {
      const id = stack.pop();
      if (id === undefined) throw new PlaceholderMismatch('unbalanced </g>');
      out += unit.g.get(id)!.close;
    }
  }
  if (stack.length) throw new PlaceholderMismatch('unclosed <g>');
  if (seenX.size !== unit.x.size || seenG.size !== unit.g.size) throw new PlaceholderMismatch('placeholders missing from the translation');
  return out;
}

/** Put rebuilt translations (same order as `units`, null: keep the source) into the page markdown. */
export function applyTranslations(md: string, units: Unit[], rebuilt: (string | null)[]): string {
  let out = '';
  let last = 0;
  units.forEach((u, i) => {
    const r = rebuilt[i];
    if (r === null || r === undefined) return;
    out += md.slice(last, u.start) + r;
    last = u.end;
  });
  return out + md.slice(last);
}
