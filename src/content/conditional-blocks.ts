// GitBook's conditional blocks (`{% if <expression> %} … {% endif %}`, the description's
// DocumentBlockIf): content shown only to readers whose context makes the expression true. The
// expression language is the one of adaptive sections (src/sites/conditions.ts): `visitor.claims.*`,
// `space.vars.*`, `page.vars.*`; an empty expression is true, an invalid one false (hidden).
//
// Two filters, one rule: what a reader may not see is taken out before anything is rendered,
// listed, indexed or handed to an agent.
// - filterConditionalMarkdown: the stored Markdown a reader is given (page HTML, `.md`,
//   llms-full.txt, MCP, PDF); the tags go too, so no raw `{%` of a block reaches anyone (a tag
//   inside a line of text is text, as GitBook reads it).
// - filterConditionalDocument: the JSON document (the renderer API's `evaluated` reads); `if`
//   blocks are replaced by their content or removed, and blocks an `if` inside a container became
//   (they carry `meta.condition`, see to-document.ts) are kept or removed the same way.
// `ctx` null hides every conditional block whatever its expression: the search index holds only what
// every reader may see (conditional content is not indexed at all).
import { codeLines, parseMarkdown } from './markdown/parse.js';
import type { DocumentBlock, DocumentFragment, JSONDocument } from './markdown/types.js';
import { conditionError, evaluateCondition, type ConditionContext } from '../sites/conditions.js';

const IF_OPEN = /^\s*\{%\s*if\b([^%]*)%\}\s*$/;
const IF_CLOSE = /^\s*\{%\s*endif\s*%\}\s*$/;
/** Every if tag on a line of its own (`[^%\n]*`: a failed match stops at the next tag or line, so a scan is linear). */
const LINE_IF_TAGS = /^[ \t]*\{%\s*if\b([^%\n]*)%\}[ \t]*$/gm;
/** Cheap test: may the text hold an `if` or `endif` tag at all? */
const ANY_IF = /\{%\s*(?:end)?if\b/;
/** Deepest document nesting the document filter descends; anything deeper is dropped. */
const MAX_DOCUMENT_DEPTH = 200;

/** Whether a body holds conditional blocks (or stray `endif` tags). */
export function hasConditionalBlocks(markdown: string): boolean {
  return ANY_IF.test(markdown);
}

/** Code lines of a body (tags there are text); a body with no fence or indented line has none (no parse). */
function codeOf(markdown: string): Set<number> {
  return /^[ \t]*(?:```|~~~)|^(?: {4}|\t)/m.test(markdown) ? codeLines(parseMarkdown(markdown)) : new Set();
}

const shown = (expression: string, ctx: ConditionContext | null) => ctx !== null && evaluateCondition(expression, ctx);

/**
 * The Markdown a reader with `ctx` sees: every `{% if %}` line and its `{% endif %}` removed, the
 * lines of a block whose expression is false (or whose enclosing block is hidden) removed, tags in
 * code left alone. An `if` without its `endif` runs to the end of the text (as parse.ts reads it); a
 * stray `endif` is removed. Line-based and iterative: linear in the text, whatever the nesting.
 */
export function filterConditionalMarkdown(markdown: string, ctx: ConditionContext | null): string {
  if (!ANY_IF.test(markdown)) return markdown;
  const lines = markdown.split('\n');
  const code = codeOf(markdown);
  const out: string[] = [];
  // Visibility of each open block (a block is visible only if all enclosing ones are).
  const open: boolean[] = [];
  let visible = true;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!code.has(i)) {
      const m = IF_OPEN.exec(line);
      if (m) {
        open.push(visible);
        visible = visible && shown(m[1].trim(), ctx);
        continue;
      }
      if (IF_CLOSE.test(line)) {
        if (open.length) visible = open.pop()!;
        continue;
      }
    }
    if (!visible) continue;
    // A tag inside a line of text is text (GitBook's blocks stand on lines of their own, and docs
    // about Liquid or Jinja quote `{% if %}` in prose and inline code): left as it is here, as in
    // the document (to-document.ts), the search index and every other output.
    out.push(line);
  }
  return out.join('\n');
}

/**
 * What a body's `{% if %}` blocks decide for `ctx`, one character per `if` tag ('1' shown, '0'
 * hidden; tags in code counted too): two readers with the same outcomes see the same body, so a
 * render cache keys on this rather than on the claims.
 */
export function conditionOutcomes(markdown: string, ctx: ConditionContext): string {
  if (!ANY_IF.test(markdown)) return '';
  let out = '';
  // Every if tag on a line of its own.
  for (const m of markdown.matchAll(LINE_IF_TAGS)) out += shown(m[1].trim(), ctx) ? '1' : '0';
  return out;
}

/** Problems of a body's conditional blocks, one line each (import warnings): invalid expressions. */
export function conditionalBlockWarnings(markdown: string): string[] {
  if (!ANY_IF.test(markdown)) return [];
  const lines = markdown.split('\n');
  const code = codeOf(markdown);
  const warnings: string[] = [];
  for (let i = 0; i < lines.length && warnings.length < 20; i++) {
    if (code.has(i)) continue;
    const m = IF_OPEN.exec(lines[i]);
    if (!m) continue;
    const error = conditionError(m[1].trim());
    if (error)
      warnings.push(`line ${i + 1}: the condition of an {% if %} block is not valid (${error}); the block is hidden from every reader`);
  }
  return warnings;
}

type Node = DocumentBlock & { meta?: Record<string, unknown>; fragments?: DocumentFragment[]; nodes?: unknown[] };

/** The condition a block carries when an `if` could not stand where it was (see to-document.ts). */
function blockCondition(node: Node): string | undefined {
  const c = node.meta?.condition;
  return typeof c === 'string' ? c : undefined;
}

function filterNodes(nodes: readonly unknown[], ctx: ConditionContext | null, depth: number): unknown[] {
  if (depth > MAX_DOCUMENT_DEPTH) return [];
  const out: unknown[] = [];
  for (const raw of nodes) {
    const node = raw as Node;
    if (!node || typeof node !== 'object') continue;
    if (node.object === 'block' && (node as { type: string }).type === 'if') {
      const expression = (node as { data?: { expression?: unknown } }).data?.expression;
      if (typeof expression === 'string' && shown(expression, ctx)) out.push(...filterNodes(node.nodes ?? [], ctx, depth + 1));
      continue;
    }
    const condition = blockCondition(node);
    if (condition !== undefined && !shown(condition, ctx)) continue;
    let copy: Node = node;
    if (condition !== undefined) {
      const { condition: _, ...meta } = node.meta!;
      copy = { ...node } as Node;
      if (Object.keys(meta).length) copy.meta = meta;
      else delete copy.meta;
    }
    if (Array.isArray(node.nodes)) copy = { ...copy, nodes: filterNodes(node.nodes, ctx, depth + 1) } as Node;
    if (Array.isArray(node.fragments))
      copy = {
        ...copy,
        fragments: node.fragments.map((f) => ({ ...f, nodes: filterNodes(f.nodes ?? [], ctx, depth + 1) as DocumentBlock[] })),
      } as Node;
    out.push(copy);
  }
  return out;
}

/**
 * The document a reader with `ctx` sees: `if` blocks replaced by their content when their
 * expression is true and removed otherwise; blocks carrying `meta.condition` kept (without it) or
 * removed the same way. The input is not modified.
 */
export function filterConditionalDocument(doc: JSONDocument, ctx: ConditionContext | null): JSONDocument {
  return { ...doc, nodes: filterNodes(doc.nodes, ctx, 0) as DocumentBlock[] };
}
