import type { BlockContent, ListItem, PhrasingContent, RootContent, TableCell, TableRow } from 'mdast';
import { serializeMdast } from './parse.js';
import type {
  ContentRef,
  DocumentBlock,
  DocumentBlockTable,
  DocumentInlineContent,
  DocumentTextLeaf,
  FormatRef,
  JSONDocument,
} from './types.js';

export interface DocumentToMarkdownOptions {
  /** How a content reference is written as a link or image destination. */
  formatRef?: FormatRef;
}

/** url → the url, page → `/pages/<id>`, file → `/files/<id>`, anchor → `#<anchor>` (after `/pages/<id>` if set). */
export const defaultFormatRef: FormatRef = (ref) => {
  switch (ref.kind) {
    case 'url':
      return ref.url;
    case 'page':
      return `/pages/${ref.page}`;
    case 'file':
      return `/files/${ref.file}`;
    case 'anchor':
      return `${ref.page ? `/pages/${ref.page}` : ''}#${ref.anchor}`;
    case 'space':
      return `/spaces/${ref.space}`;
    case 'collection':
      return `/collections/${ref.collection}`;
    case 'user':
      return `/users/${ref.user}`;
    case 'reusable-content':
      return `/reusable-contents/${ref.reusableContent}`;
    case 'tag':
      return `/tags/${ref.tag}`;
    case 'openapi':
      return `/openapi/${ref.spec}`;
  }
};

type Wrapper = 'bold' | 'italic' | 'strikethrough';
const WRAPPERS: readonly Wrapper[] = ['bold', 'italic', 'strikethrough'];
type Run = { text: string; marks: Set<string> };

/**
 * Leaves → nested mdast. At each position the mark shared by the longest run of following leaves
 * becomes the outer node (ties: bold, italic, strikethrough), so `**a *b* c**` comes back as it was;
 * code is always innermost since inline code holds nothing else. Unknown marks are ignored.
 */
function markTree(runs: readonly Run[]): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  let i = 0;
  while (i < runs.length) {
    const run = runs[i];
    let best: Wrapper | undefined;
    let bestEnd = i;
    for (const mark of WRAPPERS) {
      if (!run.marks.has(mark)) continue;
      let end = i;
      while (end < runs.length && runs[end].marks.has(mark)) end++;
      if (end > bestEnd) [best, bestEnd] = [mark, end];
    }
    if (!best) {
      out.push(run.marks.has('code') ? { type: 'inlineCode', value: run.text } : { type: 'text', value: run.text });
      i++;
      continue;
    }
    const inner = runs.slice(i, bestEnd).map((r) => ({ text: r.text, marks: new Set([...r.marks].filter((m) => m !== best)) }));
    const children = markTree(inner);
    out.push(
      best === 'bold' ? { type: 'strong', children } : best === 'italic' ? { type: 'emphasis', children } : { type: 'delete', children },
    );
    i = bestEnd;
  }
  return out;
}

class Writer {
  /** How many quotes the blocks being written are in (a tag line there would be quoted text). */
  private quoted = 0;

  constructor(private readonly format: FormatRef) {}

  private quotedBlocks(nodes: readonly DocumentBlock[] | undefined): RootContent[] {
    this.quoted++;
    try {
      return this.blocks(nodes);
    } finally {
      this.quoted--;
    }
  }

  phrasing(nodes: readonly DocumentInlineContent[] | readonly unknown[]): PhrasingContent[] {
    const out: PhrasingContent[] = [];
    let runs: Run[] = [];
    const flush = () => {
      out.push(...markTree(runs));
      runs = [];
    };
    for (const raw of nodes) {
      const node = raw as DocumentInlineContent;
      if (node.object === 'text') {
        for (const l of node.leaves as DocumentTextLeaf[])
          if (l.text !== '') runs.push({ text: l.text, marks: new Set((l.marks ?? []).map((m) => m.type)) });
        continue;
      }
      flush();
      if (node.type === 'link') {
        out.push({ type: 'link', url: this.format(node.data.ref) ?? '', title: null, children: this.phrasing(node.nodes ?? []) as never });
      } else if (node.type === 'inline-image') {
        out.push({ type: 'image', url: this.format(node.data.ref) ?? '', title: null, alt: node.data.alt ?? '' });
      } else if (node.type === 'inline-math') {
        out.push({ type: 'inlineMath', value: node.data?.formula ?? '' } as never);
      } else if (Array.isArray((node as { nodes?: unknown }).nodes)) {
        out.push(...this.phrasing((node as { nodes: unknown[] }).nodes));
      }
    }
    flush();
    return out;
  }

  blocks(nodes: readonly DocumentBlock[] | undefined): RootContent[] {
    // Runs of blocks carrying the same `meta.condition` (an `if` that stood in a container, see
    // to-document.ts) are written back inside one `{% if %}`; `if` and `prompt` blocks as their tags.
    const out: RootContent[] = [];
    const list = nodes ?? [];
    for (let i = 0; i < list.length; i++) {
      const condition = conditionOf(list[i]);
      if (condition === undefined) {
        out.push(...this.block(list[i]));
        continue;
      }
      let j = i;
      while (j + 1 < list.length && conditionOf(list[j + 1]) === condition) j++;
      const inner = list.slice(i, j + 1).map((b) => withoutCondition(b));
      const body = serializeMdast({ type: 'root', children: this.blocks(inner) });
      out.push({ type: 'html', value: `{% if ${condition} %}\n${body}{% endif %}` });
      i = j;
    }
    return out;
  }

  private block(node: DocumentBlock): RootContent[] {
    switch (node.type) {
      case 'if':
      case 'prompt':
        return [{ type: 'html', value: conditionalOrPrompt(node, this, this.format)!.trimEnd() }];
      case 'paragraph':
        return [{ type: 'paragraph', children: this.phrasing(node.nodes ?? []) }];
      case 'heading-1':
      case 'heading-2':
      case 'heading-3':
        return [
          {
            type: 'heading',
            depth: node.type === 'heading-1' ? 1 : node.type === 'heading-2' ? 2 : 3,
            children: this.phrasing(node.nodes ?? []),
          },
        ];
      case 'code': {
        const value = (node.nodes ?? []).map((line) => lineText(line?.nodes ?? [])).join('\n');
        const fence: RootContent = { type: 'code', lang: node.data?.syntax || null, meta: null, value };
        // GitBook's options as the `{% code %}` frame around the fence, wherever the block is (top
        // level, a tab, a step, a column, an update, an expandable block, a list item, an `if`):
        // the frame is raw text that the list or container around it indents like its other lines.
        // In a quote (or a hint written as one) a tag line would be text: there, a bare fence.
        const opts = codeOptions(node.data);
        if (!opts || this.quoted > 0) return [fence];
        return [{ type: 'html', value: `{% code${opts} %}\n${serializeMdast({ type: 'root', children: [fence] })}{% endcode %}` }];
      }
      case 'code-line':
        return [{ type: 'code', lang: null, meta: null, value: lineText(node.nodes ?? []) }];
      case 'list-ordered':
      case 'list-unordered':
      case 'list-tasks': {
        const tasks = node.type === 'list-tasks';
        const children = (node.nodes ?? []).map((item): ListItem => ({
          type: 'listItem',
          spread: false,
          checked: tasks ? item.data?.checked === true : null,
          children: this.blocks(item.nodes) as BlockContent[],
        }));
        const start = node.type === 'list-ordered' ? (node.data?.start ?? 1) : null;
        return [{ type: 'list', ordered: node.type === 'list-ordered', start, spread: false, children }];
      }
      case 'list-item':
        return this.blocks(node.nodes);
      case 'hint':
        // A hint in a tab, a step, a column, an update, an expandable block or a list item is written as
        // its tag, as at the top level (documentToMarkdown); in a quote a tag line would be quoted text:
        // there, a quote.
        if (this.quoted === 0) {
          const inner = serializeMdast({ type: 'root', children: this.blocks(node.nodes) });
          return [{ type: 'html', value: `{% hint style="${node.data?.style ?? 'info'}" %}\n${inner}{% endhint %}` }];
        }
        return [{ type: 'blockquote', children: this.quotedBlocks(node.nodes) as BlockContent[] }];
      case 'blockquote':
        return [{ type: 'blockquote', children: this.quotedBlocks(node.nodes) as BlockContent[] }];
      case 'divider':
        return [{ type: 'thematicBreak' }];
      case 'images':
        return [{ type: 'paragraph', children: this.images((node.nodes ?? []).filter((img) => img?.data?.ref)) }];
      case 'image':
        return [{ type: 'paragraph', children: this.images([node]) }];
      case 'file': {
        const url = this.format(node.data.ref);
        return [{ type: 'paragraph', children: [{ type: 'link', url, title: null, children: [{ type: 'text', value: url }] }] }];
      }
      case 'table':
        return [this.table(node)];
      case 'math':
        return [{ type: 'math', value: String(node.data?.formula ?? '') } as never];
      default: {
        const nested = (node as { nodes?: unknown }).nodes;
        return Array.isArray(nested) ? this.blocks(nested as DocumentBlock[]) : [];
      }
    }
  }

  private images(nodes: readonly { data: { ref: ContentRef; alt?: string } }[]): PhrasingContent[] {
    return nodes.flatMap((img, i): PhrasingContent[] => [
      ...(i ? [{ type: 'text' as const, value: ' ' }] : []),
      { type: 'image', url: this.format(img.data.ref), title: null, alt: img.data.alt ?? '' },
    ]);
  }

  private table(node: DocumentBlockTable): RootContent {
    const { view, records, definition } = node.data;
    const columns = (view.columns?.length ? view.columns : Object.keys(definition)).filter((c) => definition[c]);
    const fragments = new Map(node.fragments.map((f) => [f.fragment, f]));
    const cell = (children: PhrasingContent[]): TableCell => ({ type: 'tableCell', children });
    const header: TableRow = {
      type: 'tableRow',
      children: columns.map((c) => cell(view.type === 'grid' && view.hideHeader ? [] : textOf(definition[c].title))),
    };
    const ordered = Object.entries(records).sort(([ia, a], [ib, b]) =>
      a.orderIndex < b.orderIndex ? -1 : a.orderIndex > b.orderIndex ? 1 : ia < ib ? -1 : ia > ib ? 1 : 0,
    );
    const rows = ordered.map(([, record]): TableRow => ({
      type: 'tableRow',
      children: columns.map((c) => cell(this.cellValue(record.values[c], fragments))),
    }));
    const align = columns.map((c) => {
      const a = (definition[c] as { textAlignment?: string }).textAlignment;
      return a === 'center' || a === 'right' ? a : null;
    });
    return { type: 'table', align, children: [header, ...rows] };
  }

  private cellValue(value: unknown, fragments: Map<string | undefined, { nodes: DocumentBlock[] }>): PhrasingContent[] {
    if (value === null || value === undefined) return [];
    if (typeof value === 'string') {
      const fragment = fragments.get(value);
      if (!fragment) return textOf(value);
      // A cell holds one line: the fragment's blocks are joined with spaces.
      return fragment.nodes.flatMap((block, i) => [...(i ? textOf(' ') : []), ...this.phrasing(blockInlines(block))]);
    }
    if (typeof value === 'number' || typeof value === 'boolean') return textOf(String(value));
    if (Array.isArray(value)) return textOf(value.join(', '));
    if (typeof value === 'object' && 'kind' in value) {
      const url = this.format(value as ContentRef);
      return [{ type: 'link', url, title: null, children: textOf(url) }];
    }
    if (typeof value === 'object' && 'ref' in value) return this.cellValue((value as { ref: unknown }).ref, fragments);
    return [];
  }
}

function conditionOf(block: DocumentBlock): string | undefined {
  const c = (block as { meta?: Record<string, unknown> }).meta?.condition;
  return typeof c === 'string' ? c : undefined;
}

function withoutCondition(block: DocumentBlock): DocumentBlock {
  const { condition: _, ...meta } = (block as { meta?: Record<string, unknown> }).meta ?? {};
  const copy = { ...block } as DocumentBlock & { meta?: Record<string, unknown> };
  if (Object.keys(meta).length) copy.meta = meta;
  else delete copy.meta;
  return copy;
}

/**
 * `if` blocks as `{% if <expression> %} … {% endif %}` (their content written as a document's, so
 * hints, tabs and nested `if`s keep their tags) and `prompt` blocks as GitBook writes them:
 * `{% prompt description="…" icon="…" openInAIProviders="true" defaultExpanded="full" %}`, the code
 * block fenced, `{% endprompt %}`. Null for other blocks.
 */
function conditionalOrPrompt(block: DocumentBlock, writer: Writer, format: FormatRef): string | null {
  const b = block as { type: string; data?: Record<string, any>; nodes?: DocumentBlock[] };
  if (b.type === 'if') {
    const inner = topLevel(b.nodes ?? [], writer, format);
    const expression = String(b.data?.expression ?? '')
      .replace(/%\}/g, '% }')
      .replace(/\s*\n\s*/g, ' ');
    return `{% if ${expression} %}\n${inner}${inner && !inner.endsWith('\n') ? '\n' : ''}{% endif %}\n`;
  }
  if (b.type === 'prompt') {
    const d = b.data ?? {};
    let opts = ` description="${attr(d.description)}"`;
    if (typeof d.icon === 'string' && d.icon) opts += ` icon="${attr(d.icon)}"`;
    if (typeof d.openInAIProviders === 'boolean') opts += ` openInAIProviders="${d.openInAIProviders}"`;
    if (typeof d.defaultExpanded === 'string') opts += ` defaultExpanded="${attr(d.defaultExpanded)}"`;
    const code = (b.nodes ?? []).find((n) => n?.type === 'code');
    const fenced = code ? serializeMdast({ type: 'root', children: writer.blocks([code]) }) : '```\n```\n';
    return `{% prompt${opts} %}\n${fenced}{% endprompt %}\n`;
  }
  return null;
}

function textOf(value: string): PhrasingContent[] {
  return value ? [{ type: 'text', value }] : [];
}

function lineText(nodes: readonly unknown[]): string {
  return nodes
    .map((n) =>
      (n as { object?: string })?.object === 'text'
        ? ((n as { leaves?: DocumentTextLeaf[] }).leaves ?? []).map((l) => l?.text ?? '').join('')
        : '',
    )
    .join('');
}

function blockInlines(block: DocumentBlock): DocumentInlineContent[] {
  if (block.type === 'paragraph' || block.type.startsWith('heading-')) return (block as { nodes: DocumentInlineContent[] }).nodes;
  return [];
}

/**
 * GitBook JSON document → Markdown (GFM). The inverse of markdownToDocument for the node types it
 * produces: hints (outside quotes) are written as `{% hint style="…" %}…{% endhint %}`, code blocks
 * with options in their `{% code %}` frame wherever they are, top-level files as
 * `{% file src="…" %}{% endfile %}`; links and images use `formatRef` for their destination.
 */
const attr = (v: unknown) => String(v ?? '').replace(/"/g, '%22');
const escapeHtml = (v: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A code block's GitBook options (DocumentBlockCode data) as the attributes of the `{% code %}` frame,
 * in the order GitBook writes them; '' when it has none (a bare fence).
 */
function codeOptions(data: Record<string, unknown> | undefined): string {
  const d = data ?? {};
  return [
    typeof d.title === 'string' ? ` title="${attr(d.title)}"` : '',
    d.overflow === 'wrap' || d.overflow === 'scroll' ? ` overflow="${d.overflow}"` : '',
    typeof d.lineNumbers === 'boolean' ? ` lineNumbers="${d.lineNumbers}"` : '',
    typeof d.fullWidth === 'boolean' ? ` fullWidth="${d.fullWidth}"` : '',
    typeof d.expandable === 'boolean' ? ` expandable="${d.expandable}"` : '',
  ].join('');
}

/** GitBook's blocks written back as the tags GitBook writes (see parse.ts); null for other blocks. */
function gitbookChunk(block: DocumentBlock, writer: Writer, format: FormatRef): string | null {
  const body = (nodes: DocumentBlock[] | undefined) => serializeMdast({ type: 'root', children: writer.blocks(nodes ?? []) });
  const b = block as {
    type: string;
    data?: Record<string, any>;
    nodes?: DocumentBlock[];
    fragments?: { fragment?: string; nodes: DocumentBlock[] }[];
  };
  const items = (tag: string, opts: (n: { data?: Record<string, any> }) => string) =>
    (b.nodes ?? [])
      .map(
        (n) =>
          `{% ${tag}${opts(n as { data?: Record<string, any> })} %}\n${body((n as { nodes?: DocumentBlock[] }).nodes)}{% end${tag} %}\n`,
      )
      .join('\n');
  switch (b.type) {
    case 'tabs':
      return `{% tabs %}\n${items('tab', (n) => ` title="${attr(n.data?.title)}"`)}{% endtabs %}\n`;
    case 'stepper':
      return `{% stepper %}\n${items('step', () => '')}{% endstepper %}\n`;
    case 'columns':
      return `{% columns %}\n${items('column', () => '')}{% endcolumns %}\n`;
    case 'updates':
      return `{% updates format="${attr(b.data?.format ?? 'full')}" %}\n${items('update', (n) => ` date="${attr(String(n.data?.date ?? '').slice(0, 10))}"`)}{% endupdates %}\n`;
    case 'expandable': {
      const title = b.fragments?.find((f) => f.fragment === 'expandable-title');
      const inner = b.fragments?.find((f) => f.fragment === 'expandable-body');
      const summary = title ? body(title.nodes).trim() : '';
      return `<details${b.data?.defaultExpanded ? ' open' : ''}>\n\n<summary>${escapeHtml(summary)}</summary>\n\n${body(inner?.nodes)}\n</details>\n`;
    }
    case 'embed':
      return `{% embed url="${attr(b.data?.url)}" %}\n`;
    case 'content-ref': {
      const url = b.data?.ref ? format(b.data.ref) : '';
      return `{% content-ref url="${attr(url)}" %}\n[${url}](${url})\n{% endcontent-ref %}\n`;
    }
    case 'reusable-content':
      return `{% include "${attr(b.data?.ref?.reusableContent)}" %}\n`;
    case 'swagger': {
      const src = b.data?.ref ? format(b.data.ref) : '';
      return `{% openapi src="${attr(src)}" path="${attr(b.data?.path)}" method="${attr(b.data?.method)}" %}\n[${src}](${src})\n{% endopenapi %}\n`;
    }
    case 'openapi-operation':
      return `{% openapi-operation spec="${attr(b.data?.ref?.spec)}" path="${attr(b.data?.path)}" method="${attr(b.data?.method)}" %}\n{% endopenapi-operation %}\n`;
    default:
      return null;
  }
}

export function documentToMarkdown(doc: JSONDocument, options: DocumentToMarkdownOptions = {}): string {
  const format = options.formatRef ?? defaultFormatRef;
  return topLevel(doc.nodes, new Writer(format), format);
}

/** Blocks of the top level (a document's, or an `if` block's) as Markdown. */
function topLevel(nodes: readonly DocumentBlock[], writer: Writer, format: FormatRef): string {
  const chunks: string[] = [];
  let pending: DocumentBlock[] = [];
  const flush = () => {
    if (pending.length) chunks.push(serializeMdast({ type: 'root', children: writer.blocks(pending) }));
    pending = [];
  };
  for (const block of nodes) {
    if (conditionOf(block) !== undefined) {
      pending.push(block);
    } else if (block.type === 'if' || block.type === 'prompt') {
      flush();
      chunks.push(conditionalOrPrompt(block, writer, format)!);
    } else if (block.type === 'hint') {
      flush();
      const inner = serializeMdast({ type: 'root', children: writer.blocks(block.nodes) });
      chunks.push(`{% hint style="${block.data?.style ?? 'info'}" %}\n${inner}{% endhint %}\n`);
    } else if (block.type === 'file') {
      flush();
      chunks.push(`{% file src="${format(block.data.ref).replace(/"/g, '%22')}" %}\n{% endfile %}\n`);
    } else if (gitbookChunk(block, writer, format) !== null) {
      flush();
      chunks.push(gitbookChunk(block, writer, format)!);
    } else {
      pending.push(block);
    }
  }
  flush();
  return chunks.filter((c) => c !== '').join('\n');
}
