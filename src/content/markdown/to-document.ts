import type { Definition, Heading, List, Paragraph, PhrasingContent, Table } from 'mdast';
import { type Block, type TagNode, collapse, headingIds, htmlText, parseExtended, phrasingText } from './parse.js';
import { parseHtmlTable, type HtmlTable, type Inline } from './html-table.js';
import type {
  ContentRef,
  DocumentBlock,
  DocumentBlockCode,
  DocumentBlockGitBook,
  DocumentBlockImage,
  DocumentBlockListItem,
  DocumentBlockParagraph,
  DocumentBlockTable,
  DocumentFragment,
  DocumentInline,
  DocumentInlineContent,
  DocumentInlineImage,
  DocumentMark,
  DocumentText,
  DocumentTextLeaf,
  ImageRef,
  JSONDocument,
  MarkType,
  ResolveRef,
} from './types.js';

/**
 * Where a block sits decides what it may contain (the public schema is strict about it):
 * top level takes everything; a list item no images block; a blockquote only paragraphs, headings,
 * lists, dividers and quotes; a hint the same plus tables but no quotes. What a context refuses is
 * degraded: images become inline images, code becomes one code-marked paragraph per line, a table
 * becomes one paragraph per row, and a quote inside a hint gives its content. `container` is the
 * body of a tab, a step, a column or an update: everything but tables, expandable blocks and other
 * containers (whose content takes their place); `expandable` the body of an expandable block:
 * tables but no embeds, content references or math.
 */
type Context = 'top' | 'item' | 'quote' | 'hint' | 'container' | 'expandable';

const MARK_ORDER: readonly MarkType[] = ['bold', 'italic', 'strikethrough', 'code'];
const HEADING_ID = /^[-a-z0-9.+_]+$/;

const defaultResolve: ResolveRef = (url) => ({ kind: 'url', url });

type Piece = { leaf: DocumentTextLeaf } | { inline: DocumentInline };

function leaf(text: string, marks: readonly MarkType[]): DocumentTextLeaf {
  const sorted = MARK_ORDER.filter((m) => marks.includes(m));
  return { object: 'leaf', text, marks: sorted.map((type): DocumentMark => ({ object: 'mark', type })) };
}

function sameMarks(a: DocumentTextLeaf, b: DocumentTextLeaf): boolean {
  return a.marks.length === b.marks.length && a.marks.every((m, i) => m.type === b.marks[i].type);
}

function textNode(leaves: DocumentTextLeaf[]): DocumentText {
  return { object: 'text', key: '', leaves: leaves.length ? leaves : [leaf('', [])] };
}

/** Consecutive leaves become one text node (equal-marked neighbours merged, empty ones dropped). */
function group(pieces: readonly Piece[]): DocumentInlineContent[] {
  const out: DocumentInlineContent[] = [];
  let run: DocumentTextLeaf[] = [];
  const flush = () => {
    if (run.length) out.push(textNode(run));
    run = [];
  };
  for (const piece of pieces) {
    if ('inline' in piece) {
      flush();
      out.push(piece.inline);
    } else if (piece.leaf.text !== '') {
      const prev = run[run.length - 1];
      if (prev && sameMarks(prev, piece.leaf)) prev.text += piece.leaf.text;
      else run.push({ ...piece.leaf });
    }
  }
  flush();
  return out.length ? out : [textNode([])];
}

function emptyParagraph(): DocumentBlockParagraph {
  return { object: 'block', type: 'paragraph', key: '', data: {}, nodes: [textNode([])] };
}

class Converter {
  readonly root: Block[];
  private readonly ids: Map<Heading, string>;
  private readonly definitions: Map<string, Definition>;

  constructor(
    md: string,
    private readonly resolve: ResolveRef,
  ) {
    const { root, definitions } = parseExtended(md);
    this.definitions = definitions;
    this.ids = headingIds(root);
    this.root = root.children;
  }

  private imageRef(url: string): ImageRef {
    const ref = this.resolve(url);
    return ref.kind === 'url' || ref.kind === 'file' ? ref : { kind: 'url', url };
  }

  private inlineImage(url: string, alt: string | null | undefined): DocumentInlineImage {
    return { object: 'inline', type: 'inline-image', key: '', data: { ref: this.imageRef(url), ...(alt ? { alt } : {}) }, isVoid: true };
  }

  private link(url: string, children: PhrasingContent[], marks: readonly MarkType[]): DocumentInline {
    const nodes = group(this.pieces(children, marks)) as Array<DocumentText | DocumentInlineImage>;
    return { object: 'inline', type: 'link', key: '', data: { ref: this.resolve(url) }, nodes };
  }

  private pieces(nodes: readonly PhrasingContent[], marks: readonly MarkType[]): Piece[] {
    const out: Piece[] = [];
    for (const node of nodes) {
      switch (node.type) {
        case 'text':
          out.push({ leaf: leaf(node.value, marks) });
          break;
        case 'inlineCode':
          out.push({ leaf: leaf(node.value, [...marks, 'code']) });
          break;
        case 'break':
          out.push({ leaf: leaf('\n', marks) });
          break;
        case 'html':
          // Inline tags are dropped (the text between them is kept); <br> is a line break.
          out.push({ leaf: leaf(phrasingText([node]), marks) });
          break;
        case 'strong':
          out.push(...this.pieces(node.children, [...marks, 'bold']));
          break;
        case 'emphasis':
          out.push(...this.pieces(node.children, [...marks, 'italic']));
          break;
        case 'delete':
          out.push(...this.pieces(node.children, [...marks, 'strikethrough']));
          break;
        case 'link':
          out.push({ inline: this.link(node.url, node.children, marks) });
          break;
        case 'linkReference': {
          const def = this.definitions.get(node.identifier);
          if (def) out.push({ inline: this.link(def.url, node.children, marks) });
          else out.push(...this.pieces(node.children, marks));
          break;
        }
        case 'image':
          out.push({ inline: this.inlineImage(node.url, node.alt) });
          break;
        case 'imageReference': {
          const def = this.definitions.get(node.identifier);
          out.push(def ? { inline: this.inlineImage(def.url, node.alt) } : { leaf: leaf(node.alt ?? '', marks) });
          break;
        }
        case 'footnoteReference':
          out.push({ leaf: leaf(phrasingText([node]), marks) });
          break;
        default:
          if ((node as { type: string }).type === 'inlineMath') {
            const formula = (node as unknown as { value: string }).value;
            out.push({ inline: { object: 'inline', type: 'inline-math', key: '', data: { formula }, isVoid: true } });
          }
      }
    }
    return out;
  }

  private paragraph(children: readonly PhrasingContent[]): DocumentBlockParagraph {
    return { object: 'block', type: 'paragraph', key: '', data: {}, nodes: group(this.pieces(children, [])) };
  }

  private imagesOnly(node: Paragraph): DocumentBlockImage[] | undefined {
    const images: DocumentBlockImage[] = [];
    for (const child of node.children) {
      let url: string | undefined;
      if (child.type === 'image') url = child.url;
      else if (child.type === 'imageReference') url = this.definitions.get(child.identifier)?.url;
      else if (child.type === 'text' && child.value.trim() === '') continue;
      if (url === undefined) return undefined;
      const alt = (child as { alt?: string | null }).alt;
      images.push({
        object: 'block',
        type: 'image',
        key: '',
        data: { ref: this.imageRef(url), ...(alt ? { alt } : {}) },
        fragments: [],
        isVoid: true,
      });
    }
    return images.length ? images : undefined;
  }

  blocks(nodes: readonly Block[], ctx: Context): DocumentBlock[] {
    return nodes.flatMap((node) => this.block(node, ctx));
  }

  private block(node: Block, ctx: Context): DocumentBlock[] {
    switch (node.type) {
      case 'paragraph': {
        const images = ctx === 'top' || ctx === 'container' || ctx === 'expandable' ? this.imagesOnly(node) : undefined;
        if (images) return [{ object: 'block', type: 'images', key: '', data: {}, nodes: images, isVoid: false }];
        return [this.paragraph(node.children)];
      }
      case 'heading': {
        const id = this.ids.get(node) ?? '';
        const type = node.depth === 1 ? 'heading-1' : node.depth === 2 ? 'heading-2' : 'heading-3';
        const data = HEADING_ID.test(id) ? { id } : {};
        return [{ object: 'block', type, key: '', data, meta: { id }, nodes: group(this.pieces(node.children, [])) }];
      }
      case 'thematicBreak':
        return [{ object: 'block', type: 'divider', key: '', data: {}, isVoid: true }];
      case 'code': {
        const lines = node.value.split('\n');
        if (ctx === 'quote' || ctx === 'hint') {
          return lines.filter((l) => l.trim() !== '').map((l) => ({ ...emptyParagraph(), nodes: [textNode([leaf(l, ['code'])])] }));
        }
        const nodes = lines.map((l) => ({
          object: 'block' as const,
          type: 'code-line' as const,
          key: '',
          data: {},
          nodes: [textNode(l ? [leaf(l, [])] : [])],
        }));
        return [{ object: 'block', type: 'code', key: '', data: node.lang ? { syntax: node.lang } : {}, nodes }];
      }
      case 'blockquote':
        if (ctx === 'hint') return this.blocks(node.children, 'hint');
        return [{ object: 'block', type: 'blockquote', key: '', data: {}, nodes: this.blocks(node.children, 'quote') }];
      case 'list':
        return [this.list(node)];
      case 'table':
        if (ctx === 'quote' || ctx === 'container') {
          return node.children.map((row) => ({
            ...emptyParagraph(),
            nodes: group(row.children.flatMap((cell, i) => [...(i ? [{ leaf: leaf(' | ', []) }] : []), ...this.pieces(cell.children, [])])),
          }));
        }
        return [this.table(node)];
      case 'html': {
        const figure = this.figure(node.value, ctx);
        if (figure) return figure;
        const table = ctx === 'quote' || ctx === 'container' ? null : parseHtmlTable(node.value);
        if (table) return [this.htmlTable(table)];
        const text = collapse(htmlText(node.value));
        return text ? [{ ...emptyParagraph(), nodes: [textNode([leaf(text, [])])] }] : [];
      }
      case 'footnoteDefinition': {
        // No footnotes in the model: the definition becomes its content, prefixed with `[^label]: `.
        const label = `[^${node.label ?? node.identifier}]:`;
        const content = this.blocks(node.children, ctx);
        const first = content[0];
        if (first?.type === 'paragraph') first.nodes = group([{ leaf: leaf(`${label} `, []) }, ...first.nodes.flatMap(toPieces)]);
        else content.unshift({ ...emptyParagraph(), nodes: [textNode([leaf(label, [])])] });
        return content;
      }
      case 'gitbookHint': {
        const nodes = this.blocks(node.children, 'hint');
        return [{ object: 'block', type: 'hint', key: '', data: { style: node.style }, nodes: nodes.length ? nodes : [emptyParagraph()] }];
      }
      case 'gitbookFile': {
        const ref = this.resolve(node.src);
        if (ref.kind === 'file') return [{ object: 'block', type: 'file', key: '', data: { ref }, isVoid: true }];
        return [{ ...emptyParagraph(), nodes: [this.link(node.src, [{ type: 'text', value: node.src }], [])] }];
      }
      case 'gitbookTag':
        return this.tag(node, ctx);
      case 'gitbookDetails': {
        const title = { ...emptyParagraph(), nodes: [textNode([leaf(node.summary, [])])] };
        const body = this.blocks(node.children, 'expandable');
        if (ctx !== 'top') return [{ ...title, nodes: [textNode([leaf(node.summary, ['bold'])])] }, ...this.blocks(node.children, ctx)];
        return [
          {
            object: 'block',
            type: 'expandable',
            key: '',
            data: node.open ? { defaultExpanded: true } : {},
            fragments: [
              { object: 'fragment', key: '', fragment: 'expandable-title', type: 'expandable-title', nodes: [title] },
              {
                object: 'fragment',
                key: '',
                fragment: 'expandable-body',
                type: 'expandable-body',
                nodes: body.length ? body : [emptyParagraph()],
              },
            ],
            isVoid: true,
          },
        ];
      }
      default:
        if ((node as { type: string }).type === 'math') {
          const formula = (node as unknown as { value: string }).value;
          if (ctx === 'quote' || ctx === 'hint' || ctx === 'expandable')
            return [{ ...emptyParagraph(), nodes: [textNode([leaf(formula, ['code'])])] }];
          return [{ object: 'block', type: 'math', key: '', data: { formula }, isVoid: true }];
        }
        // definition, yaml and anything unknown produce nothing
        return [];
    }
  }

  /** A paragraph standing for a block that cannot be where it is: a link to what it points at. */
  private linkParagraph(url: string, label = url): DocumentBlockParagraph {
    return { ...emptyParagraph(), nodes: [this.link(url, [{ type: 'text', value: label }], [])] };
  }

  /** `<figure>` / `<img>` HTML: an images block (with the figure's caption), where images may be. */
  private figure(html: string, ctx: Context): DocumentBlock[] | undefined {
    const imgs = [...html.matchAll(/<img\b([^>]*)>/gi)];
    if (!imgs.length) return undefined;
    const caption = /<figcaption[^>]*>([\s\S]*?)<\/figcaption>/i.exec(html);
    const captionText = caption ? collapse(htmlText(caption[1])) : '';
    const images: DocumentBlockImage[] = [];
    for (const m of imgs) {
      const attr = (name: string) => new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'i').exec(m[1]);
      const src = attr('src');
      const url = src ? decodeEntities(src[1] ?? src[2] ?? '') : '';
      if (!url) continue;
      const altM = attr('alt');
      const alt = altM ? decodeEntities(altM[1] ?? altM[2] ?? '') : '';
      const fragments: DocumentFragment[] = captionText
        ? [
            {
              object: 'fragment',
              key: '',
              fragment: 'caption',
              nodes: [{ ...emptyParagraph(), nodes: [textNode([leaf(captionText, [])])] }],
            },
          ]
        : [];
      images.push({
        object: 'block',
        type: 'image',
        key: '',
        data: { ref: this.imageRef(url), ...(alt ? { alt } : {}) },
        fragments,
        isVoid: true,
      });
    }
    if (!images.length) return undefined;
    if (ctx === 'top' || ctx === 'container' || ctx === 'expandable')
      return [{ object: 'block', type: 'images', key: '', data: {}, nodes: images, isVoid: false }];
    return [
      {
        ...emptyParagraph(),
        nodes: images.map(
          (img) =>
            ({
              object: 'inline',
              type: 'inline-image',
              key: '',
              data: { ...img.data, ...(captionText ? { caption: captionText } : {}) },
              isVoid: true,
            }) as DocumentInlineImage,
        ),
      },
    ];
  }

  /** GitBook block tags. Containers nested where the schema has no room for them give their content. */
  private tag(node: TagNode, ctx: Context): DocumentBlock[] {
    const a = node.attrs;
    const block = (
      type: DocumentBlockGitBook['type'],
      data: Record<string, unknown>,
      rest: Partial<DocumentBlockGitBook>,
    ): DocumentBlockGitBook => ({
      object: 'block',
      type,
      key: '',
      data,
      isVoid: false,
      ...rest,
    });
    const body = (children: Block[]) => {
      const nodes = this.blocks(children, 'container');
      return nodes.length ? nodes : [emptyParagraph()];
    };
    const items = (name: string) => node.children.filter((c): c is TagNode => c.type === 'gitbookTag' && c.name === name);
    const canContain = ctx === 'top' || ctx === 'container';
    /** A container where it cannot be: each item's title (bold) and content. */
    const flattened = (name: string, title: (t: TagNode) => string | undefined) =>
      items(name).flatMap((t) => {
        const label = title(t);
        return [...(label ? [{ ...emptyParagraph(), nodes: [textNode([leaf(label, ['bold'])])] }] : []), ...this.blocks(t.children, ctx)];
      });
    switch (node.name) {
      case 'tabs':
        if (ctx !== 'top') return flattened('tab', (t) => t.attrs.title);
        return [
          block(
            'tabs',
            {},
            { nodes: items('tab').map((t) => block('tabs-item', { title: t.attrs.title ?? '' }, { nodes: body(t.children) })) },
          ),
        ];
      case 'stepper':
        if (ctx !== 'top') return flattened('step', () => undefined);
        return [block('stepper', {}, { nodes: items('step').map((t) => block('stepper-step', {}, { nodes: body(t.children) })) })];
      case 'columns':
        if (ctx !== 'top') return flattened('column', () => undefined);
        return [block('columns', {}, { nodes: items('column').map((t) => block('column', {}, { nodes: body(t.children) })) })];
      case 'updates': {
        if (ctx !== 'top') return flattened('update', (t) => t.attrs.date);
        const format = ['numeric', 'full', 'short'].includes(a.format ?? '') ? a.format : 'full';
        const date = (d: string | undefined) => {
          const t = Date.parse(d && /^\d{4}-\d{2}-\d{2}$/.test(d) ? `${d}T00:00:00Z` : (d ?? ''));
          return Number.isNaN(t) ? new Date(0).toISOString() : new Date(t).toISOString();
        };
        return [
          block(
            'updates',
            { format },
            { nodes: items('update').map((t) => block('update', { date: date(t.attrs.date) }, { nodes: body(t.children) })) },
          ),
        ];
      }
      case 'code': {
        // The tag's options go to the code block it wraps.
        const out = this.blocks(node.children, ctx);
        const code = out.find((b): b is DocumentBlockCode => b.type === 'code');
        if (code) {
          // An empty title is kept too: GitBook writes `title=""`, and the frame it stands in comes back.
          if (a.title !== undefined) code.data.title = a.title;
          if (a.overflow === 'wrap' || a.overflow === 'scroll') code.data.overflow = a.overflow;
          if (a.lineNumbers !== undefined) code.data.lineNumbers = a.lineNumbers === 'true';
          if (a.fullWidth !== undefined) code.data.fullWidth = a.fullWidth === 'true';
          if (a.expandable !== undefined) code.data.expandable = a.expandable === 'true';
        }
        return out;
      }
      case 'embed':
        if (!a.url) return this.blocks(node.children, ctx);
        if (ctx === 'item' || ctx === 'quote' || ctx === 'expandable')
          return [this.linkParagraph(a.url), ...this.blocks(node.children, ctx)];
        return [block('embed', { url: a.url }, { isVoid: true })];
      case 'content-ref': {
        if (!a.url) return [];
        if (!canContain) return [this.linkParagraph(a.url)];
        return [block('content-ref', { ref: this.resolve(a.url) }, { isVoid: true })];
      }
      case 'include': {
        const src = node.arg ?? a.src ?? '';
        if (ctx !== 'top') return src ? [this.linkParagraph(src)] : [];
        return [block('reusable-content', { ref: { kind: 'reusable-content', reusableContent: src } }, { isVoid: true })];
      }
      case 'swagger':
      case 'openapi': {
        const src = a.src ?? '';
        if (ctx !== 'top' || !src) return src ? [this.linkParagraph(src, `${(a.method ?? '').toUpperCase()} ${a.path ?? ''}`.trim())] : [];
        const data: Record<string, unknown> = { ref: this.imageRef(src), path: a.path ?? '', method: (a.method ?? 'get').toLowerCase() };
        if (a.expanded !== undefined) data.expanded = a.expanded === 'true';
        return [block('swagger', data, { isVoid: true })];
      }
      case 'openapi-operation': {
        if (ctx !== 'top' || !a.spec) return [];
        return [
          block(
            'openapi-operation',
            { ref: { kind: 'openapi', spec: a.spec }, path: a.path ?? '', method: (a.method ?? 'get').toLowerCase() },
            { isVoid: true },
          ),
        ];
      }
      case 'if': {
        // The description has `if` blocks at the top level only (and inside other `if`s). Elsewhere
        // (a hint, a tab, an expandable block…) each block of its content carries the condition as
        // `meta.condition` (nested ones joined with &&), which the reader's filter and the writer
        // back to Markdown read (src/content/conditional-blocks.ts, from-document.ts).
        const expression = node.expression ?? '';
        if (ctx === 'top') return [block('if', { expression }, { nodes: this.blocks(node.children, 'top') })];
        return this.blocks(node.children, ctx).map((b) => {
          const m = b as { meta?: Record<string, unknown> };
          const inner = typeof m.meta?.condition === 'string' ? m.meta.condition : undefined;
          const condition = inner === undefined || inner === '' ? expression : expression === '' ? inner : `(${expression}) && (${inner})`;
          m.meta = { ...(m.meta ?? {}), condition };
          return b;
        });
      }
      case 'prompt': {
        // One code block: the first the body has (fenced, or in a `{% code %}` frame), else the body as text.
        const inner = this.blocks(node.children, 'container');
        const code: DocumentBlockCode = inner.find((b): b is DocumentBlockCode => b.type === 'code') ?? {
          object: 'block',
          type: 'code',
          key: '',
          data: {},
          nodes: node.raw
            .replace(/^\n+|\n+$/g, '')
            .split('\n')
            .map((l) => ({
              object: 'block' as const,
              type: 'code-line' as const,
              key: '',
              data: {},
              nodes: [textNode(l ? [leaf(l, [])] : [])],
            })),
        };
        const description = a.description ?? '';
        if (ctx !== 'top' && ctx !== 'container' && ctx !== 'expandable') {
          const value = code.nodes.map((l) => l.nodes.map((t) => t.leaves.map((x) => x.text).join('')).join('')).join('\n');
          return [
            ...(description ? [{ ...emptyParagraph(), nodes: [textNode([leaf(description, ['bold'])])] }] : []),
            ...this.blocks([{ type: 'code', lang: code.data.syntax ?? null, value }], ctx),
          ];
        }
        const data: Record<string, unknown> = { description };
        if (a.icon && a.icon.length <= 50 && /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/i.test(a.icon)) data.icon = a.icon;
        if (a.openInAIProviders !== undefined) data.openInAIProviders = a.openInAIProviders === 'true';
        if (['hidden', 'partial', 'full'].includes(a.defaultExpanded ?? '')) data.defaultExpanded = a.defaultExpanded;
        return [block('prompt', data, { nodes: [code] })];
      }
      default:
        // A tab, step, column or update outside its container, or an unknown tag: its content.
        return this.blocks(node.children, ctx);
    }
  }

  private list(node: List): DocumentBlock {
    const tasks = node.children.some((item) => typeof item.checked === 'boolean');
    const type = tasks ? 'list-tasks' : node.ordered ? 'list-ordered' : 'list-unordered';
    const items = node.children.map((item): DocumentBlockListItem => {
      const nodes = this.blocks(item.children, 'item');
      return {
        object: 'block',
        type: 'list-item',
        key: '',
        data: tasks ? { checked: item.checked === true } : {},
        nodes: nodes.length ? nodes : [emptyParagraph()],
      };
    });
    const data = type === 'list-ordered' && node.start != null && node.start !== 1 ? { start: node.start } : {};
    return { object: 'block', type, key: '', data, nodes: items };
  }

  /**
   * A GFM table becomes a grid view: one text column per header cell (`c0`, `c1`, … titled with the
   * header's plain text, aligned as the delimiter row says, left by default), one record per body row
   * (`r0`, `r1`, … with sortable orderIndex `a0000`, `a0001`, …). As in GitBook, a text cell's value
   * is the id of a fragment of the block holding the cell's content as a paragraph (so bold, code and
   * links in cells survive); empty cells have no value. An all-empty header row sets `hideHeader`.
   */
  /**
   * GitBook's raw HTML table (`<table data-view="cards">` card grids and richer tables) as the
   * description's table block: a cards view with its cover (image) and target (content-ref)
   * columns, or a grid; hidden columns stay in the definition but not in the view.
   */
  private htmlTable(t: HtmlTable): DocumentBlockTable {
    const width = Math.max(t.columns.length, ...t.rows.map((r) => r.length));
    const ids = Array.from({ length: width }, (_, i) => `c${i}`);
    const definition: DocumentBlockTable['data']['definition'] = {};
    ids.forEach((id, i) => {
      const col = t.columns[i];
      const title = col?.title ?? '';
      definition[id] = col?.cover
        ? { id, title, type: 'image' }
        : col?.target
          ? { id, title, type: 'content-ref' }
          : { id, title, type: 'text', textAlignment: 'left' };
    });
    const records: DocumentBlockTable['data']['records'] = {};
    const fragments: DocumentFragment[] = [];
    t.rows.forEach((row, r) => {
      const values: Record<string, unknown> = {};
      // A target the description's record values cannot hold unambiguously (a URL or a file: the
      // same shapes as an image value) becomes the link of the card's first text instead.
      let titleLink: string | null = null;
      ids.forEach((id, c) => {
        const cell = row[c];
        const col = t.columns[c];
        const url = col?.cover || col?.target ? cellUrl(cell) : null;
        if (!url) return;
        if (col?.cover) values[id] = { ref: this.imageRef(url) };
        else {
          const ref = this.resolve(url);
          if (ref.kind === 'url' || ref.kind === 'file') titleLink = url;
          else values[id] = ref;
        }
      });
      ids.forEach((id, c) => {
        const cell = row[c];
        const col = t.columns[c];
        if (!cell?.length || col?.cover || col?.target) return;
        let phrasing = cellPhrasing(cell);
        if (titleLink && !cell.some((n) => n.kind === 'link')) {
          phrasing = [{ type: 'link', url: titleLink, children: phrasing }];
          titleLink = null;
        }
        const fragment = `r${r}-${id}`;
        values[id] = fragment;
        fragments.push({ object: 'fragment', key: '', fragment, nodes: [this.paragraph(phrasing)] });
      });
      records[`r${r}`] = { orderIndex: `a${r.toString(36).padStart(4, '0')}`, values };
    });
    const shown = ids.filter((_, i) => !t.columns[i]?.hidden && !t.columns[i]?.cover && !t.columns[i]?.target);
    const cover = ids.find((_, i) => t.columns[i]?.cover);
    const target = ids.find((_, i) => t.columns[i]?.target);
    const view: DocumentBlockTable['data']['view'] = t.cards
      ? {
          type: 'cards',
          cardSize: t.cardSize,
          columns: shown,
          hideColumnTitle: true,
          ...(cover ? { coverDefinition: cover } : {}),
          ...(target ? { targetDefinition: target } : {}),
        }
      : { type: 'grid', columns: shown, hideHeader: shown.every((id) => definition[id].title === '') };
    return { object: 'block', type: 'table', key: '', data: { view, records, definition }, fragments, isVoid: true };
  }

  private table(node: Table): DocumentBlockTable {
    const [head, ...rows] = node.children;
    const width = Math.max(node.align?.length ?? 0, head?.children.length ?? 0);
    const columns = Array.from({ length: width }, (_, i) => `c${i}`);
    const definition: DocumentBlockTable['data']['definition'] = {};
    columns.forEach((id, i) => {
      const align = node.align?.[i];
      const title = collapse(phrasingText(head?.children[i]?.children ?? [], false));
      definition[id] = { id, title, type: 'text', textAlignment: align === 'center' || align === 'right' ? align : 'left' };
    });
    const records: DocumentBlockTable['data']['records'] = {};
    const fragments: DocumentFragment[] = [];
    rows.forEach((row, r) => {
      const values: Record<string, string> = {};
      columns.forEach((col, c) => {
        const cell = row.children[c];
        if (!cell || cell.children.length === 0) return;
        const fragment = `r${r}-${col}`;
        values[col] = fragment;
        fragments.push({ object: 'fragment', key: '', fragment, nodes: [this.paragraph(cell.children)] });
      });
      records[`r${r}`] = { orderIndex: `a${r.toString(36).padStart(4, '0')}`, values };
    });
    const hideHeader = columns.every((c) => definition[c].title === '');
    return {
      object: 'block',
      type: 'table',
      key: '',
      data: { view: { type: 'grid', columns, hideHeader }, records, definition },
      fragments,
      isVoid: true,
    };
  }
}

/** A table cell's rebuilt content as Markdown phrasing, so it converts like any paragraph. */
function cellPhrasing(list: readonly Inline[]): PhrasingContent[] {
  return list.map((n): PhrasingContent => {
    switch (n.kind) {
      case 'text':
        return { type: 'text', value: n.text };
      case 'strong':
        return { type: 'strong', children: cellPhrasing(n.children) };
      case 'em':
        return { type: 'emphasis', children: cellPhrasing(n.children) };
      case 'code':
        return { type: 'inlineCode', value: n.children.map((c) => (c.kind === 'text' ? c.text : '')).join('') };
      case 'link':
        return { type: 'link', url: n.href, children: cellPhrasing(n.children) };
      case 'image':
        return { type: 'image', url: n.src, alt: n.alt };
      case 'br':
        return { type: 'break' };
    }
  });
}

/** The first link or image URL of a cell (a card's cover or target). */
function cellUrl(cell: readonly Inline[] | undefined): string | null {
  for (const n of cell ?? []) {
    if (n.kind === 'image') return n.src;
    if (n.kind === 'link') return n.href;
    if (n.kind === 'strong' || n.kind === 'em') {
      const inner = cellUrl(n.children);
      if (inner) return inner;
    }
  }
  return null;
}

/** HTML attribute text: the few entities GitBook writes (&#x26; for '&' in URLs...). */
function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (m, e: string) => {
    const k = e.toLowerCase();
    const code = k.startsWith('#x') ? parseInt(k.slice(2), 16) : k.startsWith('#') ? parseInt(k.slice(1), 10) : -1;
    if (code >= 0) return code <= 0x10ffff ? String.fromCodePoint(code) : m;
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[k] ?? m;
  });
}

function toPieces(node: DocumentInlineContent): Piece[] {
  return node.object === 'text' ? node.leaves.map((l) => ({ leaf: l })) : [{ inline: node }];
}

/** Gives every block, inline, text and fragment a key `k1`, `k2`, … in document order. */
function assignKeys(doc: JSONDocument): void {
  let n = 0;
  const visit = (node: { object: string; key?: string; nodes?: unknown[]; fragments?: unknown[] }) => {
    node.key = `k${++n}`;
    for (const child of node.nodes ?? []) visit(child as typeof node);
    for (const fragment of node.fragments ?? []) visit(fragment as typeof node);
  };
  for (const block of doc.nodes) visit(block);
}

/**
 * Markdown → GitBook JSON document. `resolve` maps every link, image and file destination to a
 * content reference (default `{ kind: 'url', url }`); images only keep url or file references.
 * The output is deterministic: the same Markdown always gives the same document, keys included.
 */
export function markdownToDocument(md: string, resolve: ResolveRef = defaultResolve): JSONDocument {
  const converter = new Converter(md, resolve);
  const doc: JSONDocument = { object: 'document', data: {}, nodes: converter.blocks(converter.root, 'top') };
  assignKeys(doc);
  return doc;
}

export type { ContentRef };
