// Structure documentation generators put in HTML that a plain HTML → Markdown conversion loses:
// code block languages (and titles), admonitions and tab sets, as MkDocs (Material,
// pymdownx.highlight/details/tabbed), Sphinx (docutils admonitions, Pygments, sphinx-design,
// sphinx-tabs, sphinx-inline-tabs) and other highlight.js/Prism sites write them. They become the
// GitBook blocks of our Markdown: fenced code with its language (`{% code title %}` around it when
// the block has a file name), `{% hint style %}` and `{% tabs %}`/`{% tab title %}`.
import type TurndownService from 'turndown';
import type { HTMLElement } from 'node-html-parser';

/** The DOM turndown hands to rules (domino), as much of it as is used here. */
interface DomElement {
  nodeName: string;
  parentNode: DomElement | null;
  previousElementSibling?: DomElement | null;
  children: ArrayLike<DomElement>;
  textContent: string | null;
  innerHTML: string;
  getAttribute(name: string): string | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
  remove(): void;
}

const classes = (el: DomElement | null | undefined): string[] => (el?.getAttribute?.('class') ?? '').split(/\s+/).filter(Boolean);
const hasClass = (el: DomElement | null | undefined, c: string) => classes(el).includes(c);

/** Nearest ancestor (not `el` itself) with one of `names`, within `levels`. */
function ancestor(el: DomElement, test: (a: DomElement) => boolean, levels = 64): DomElement | null {
  let cur = el.parentNode;
  for (let i = 0; cur && i < levels; i++, cur = cur.parentNode) if (cur.nodeName !== '#document' && test(cur)) return cur;
  return null;
}

// ---- code blocks ---------------------------------------------------------------------------------

/** Names generators use that are no language (or mean "the default"). */
const NO_LANGUAGE = new Set(['default', 'none', 'text', 'plain', 'plaintext', 'nohighlight', 'txt']);
const ALIASES: Record<string, string> = {
  python3: 'python',
  py3: 'python',
  pycon: 'python',
  ipython3: 'python',
  sh: 'bash',
  shell: 'bash',
};

function languageOf(classList: string[]): string | null {
  for (const c of classList) {
    const m = /^(?:language|lang|highlight|brush:?)-([\w+#.-]+)$/i.exec(c);
    if (m && m[1].toLowerCase() !== 'source') return m[1];
  }
  return null;
}

/**
 * The language of a code block: a `language-x`/`lang-x` class (highlight.js, Prism, MkDocs), or
 * Sphinx's `highlight-x` wrapper, on the `<code>`, the `<pre>` or one of a few wrappers around it,
 * or a `data-lang`/`data-language` attribute of the `<code>` or `<pre>` (Hugo, Prism plugins).
 */
function codeLanguage(pre: DomElement, outer: DomElement = pre): string {
  const code = pre.querySelector('code');
  const attr = (e: DomElement | null) => e?.getAttribute('data-lang') ?? e?.getAttribute('data-language') ?? null;
  let found = languageOf(classes(code)) ?? languageOf(classes(pre)) ?? attr(code) ?? attr(pre) ?? languageOf(classes(outer));
  for (let cur = outer.parentNode, i = 0; !found && cur && i < 5; cur = cur.parentNode, i++) found = languageOf(classes(cur));
  if (!found) return '';
  const lang = found.toLowerCase();
  if (NO_LANGUAGE.has(lang)) return '';
  return ALIASES[lang] ?? lang;
}

/** A code block's file name: MkDocs' `<span class="filename">` before the `<pre>`, Sphinx's caption. */
function codeTitle(pre: DomElement): string {
  const highlight = ancestor(pre, (a) => hasClass(a, 'highlight') || hasClass(a, 'highlighttable'), 4);
  const mk = (highlight ?? pre.parentNode)?.querySelector('.filename');
  if (mk?.textContent?.trim()) return mk.textContent.trim();
  const wrapper = ancestor(pre, (a) => hasClass(a, 'literal-block-wrapper'), 5);
  const caption = wrapper?.querySelector('.code-block-caption .caption-text') ?? wrapper?.querySelector('.code-block-caption');
  return caption?.textContent?.trim() ?? '';
}

/** The text of a code block, without line numbers generators put inside it. */
function codeText(pre: DomElement): string {
  for (const n of Array.from(pre.querySelectorAll('.linenos, .lineno, .linenodiv'))) n.remove();
  return (pre.textContent ?? '').replace(/\n$/, '');
}

function fenced(text: string, lang: string, title: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const block = `${fence}${lang}\n${text}\n${fence}`;
  return title ? `\n\n{% code title="${attr(title)}" %}\n${block}\n{% endcode %}\n\n` : `\n\n${block}\n\n`;
}

/** A value inside `"…"` of a block tag. */
function attr(s: string): string {
  return s.replace(/\s+/g, ' ').replace(/"/g, "'").trim().slice(0, 200);
}

// ---- admonitions ---------------------------------------------------------------------------------

/** MkDocs Material and Sphinx admonition types → GitBook hint styles (others are `info`). */
const HINT_STYLE: Record<string, 'info' | 'success' | 'warning' | 'danger'> = {
  tip: 'success',
  hint: 'success',
  success: 'success',
  check: 'success',
  done: 'success',
  warning: 'warning',
  caution: 'warning',
  attention: 'warning',
  important: 'warning',
  danger: 'danger',
  error: 'danger',
  failure: 'danger',
  fail: 'danger',
  missing: 'danger',
  bug: 'danger',
};
const INFO_TYPES = [
  'note',
  'info',
  'abstract',
  'summary',
  'tldr',
  'todo',
  'seealso',
  'question',
  'help',
  'faq',
  'example',
  'quote',
  'cite',
];
const ADMONITION_TYPES = new Set([...Object.keys(HINT_STYLE), ...INFO_TYPES]);

/** An admonition's type, or null: `<div|aside class="admonition x">`, or pymdownx.details' `<details class="x">`. */
function admonitionType(el: DomElement): string | null {
  const name = el.nodeName;
  if (name !== 'DIV' && name !== 'ASIDE' && name !== 'DETAILS') return null;
  const list = classes(el);
  const known = list.find((c) => ADMONITION_TYPES.has(c));
  if (list.includes('admonition')) return known ?? 'note';
  return name === 'DETAILS' ? (known ?? null) : null;
}

function admonitionTitle(el: DomElement): DomElement | null {
  for (const child of Array.from(el.children)) {
    if (hasClass(child, 'admonition-title') || (el.nodeName === 'DETAILS' && child.nodeName === 'SUMMARY')) return child;
  }
  return null;
}

/** Where a `{% … %}` block cannot go: GitBook blocks live at the top level of a page. */
function nestedContext(el: DomElement): boolean {
  return !!ancestor(el, (a) => ['LI', 'TD', 'TH', 'BLOCKQUOTE'].includes(a.nodeName) || admonitionType(a) !== null || isTabSet(a));
}

function quote(md: string): string {
  return md
    .split('\n')
    .map((l) => (l ? `> ${l}` : '>'))
    .join('\n');
}

// ---- tab sets ------------------------------------------------------------------------------------

const TAB_SETS = ['tabbed-set', 'sd-tab-set', 'tab-set', 'sphinx-tabs'];
const TAB_PANELS = ['tabbed-content', 'tabbed-block', 'sd-tab-content', 'tab-content', 'sphinx-tabs-panel'];

function isTabSet(el: DomElement): boolean {
  return el.nodeName === 'DIV' && classes(el).some((c) => TAB_SETS.includes(c));
}

/** A tab set's (title, panel) pairs, in order: labels and panels of this set only (not of sets nested in its panels). */
function tabsOf(set: DomElement): { title: string; panel: DomElement }[] {
  const titles: string[] = [];
  const panels: DomElement[] = [];
  const visit = (el: DomElement, depth: number) => {
    for (const child of Array.from(el.children)) {
      const list = classes(child);
      if (child.nodeName === 'LABEL' || list.includes('sphinx-tabs-tab'))
        titles.push((child.textContent ?? '').replace(/\s+/g, ' ').trim());
      else if (list.includes('tabbed-content') && Array.from(child.children).some((c) => hasClass(c, 'tabbed-block')))
        visit(child, depth + 1);
      else if (list.some((c) => TAB_PANELS.includes(c))) panels.push(child);
      else if (depth < 2 && (list.includes('tabbed-labels') || child.getAttribute('role') === 'tablist')) visit(child, depth + 1);
    }
  };
  visit(set, 0);
  return panels.map((panel, i) => ({ title: titles[i] || `Tab ${i + 1}`, panel }));
}

// ---- wiring ----------------------------------------------------------------------------------------

/**
 * Before the page's chrome is dropped: sphinx-tabs writes its tab titles as `<button>`s, which the
 * import removes with every other button; they become labels first.
 */
export function keepTabTitles(root: HTMLElement): void {
  for (const b of root.querySelectorAll('button.sphinx-tabs-tab')) {
    const text = b.text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
    b.replaceWith(`<label class="sphinx-tabs-tab">${text}</label>`);
  }
}

/** Adds the rules for code blocks, admonitions and tab sets to `td`. */
export function addStructureRules(td: TurndownService): void {
  const el = (node: unknown) => node as DomElement;

  // Code blocks: every <pre> (with or without <code>, highlighted spans included), and Pygments'
  // line-number tables, as one fenced block with its language.
  td.addRule('codeBlock', {
    filter: (node) => node.nodeName === 'PRE' && !ancestor(el(node), (a) => hasClass(a, 'highlighttable'), 6),
    replacement: (_content, node) => fenced(codeText(el(node)), codeLanguage(el(node)), codeTitle(el(node))),
  });
  td.addRule('codeTable', {
    filter: (node) => node.nodeName === 'TABLE' && hasClass(el(node), 'highlighttable'),
    replacement: (_content, node) => {
      const pre = el(node).querySelector('td.code pre') ?? el(node).querySelector('pre:last-of-type');
      return pre ? fenced(codeText(pre), codeLanguage(pre, el(node)), codeTitle(pre)) : '';
    },
  });
  // File names and captions are written with their code block.
  td.addRule('codeTitle', {
    filter: (node) =>
      (hasClass(el(node), 'filename') && !!ancestor(el(node), (a) => hasClass(a, 'highlight'), 3)) ||
      hasClass(el(node), 'code-block-caption'),
    replacement: () => '',
  });

  td.addRule('admonitionTitle', {
    filter: (node) => {
      const parent = el(node).parentNode;
      return !!parent && admonitionType(parent) !== null && admonitionTitle(parent) === el(node);
    },
    replacement: () => '',
  });
  td.addRule('admonition', {
    filter: (node) => admonitionType(el(node)) !== null,
    replacement: (content, node) => {
      const type = admonitionType(el(node))!;
      const titleText = (admonitionTitle(el(node))?.textContent ?? '').replace(/\s+/g, ' ').trim();
      // The type's own name ("Note", "See also") is what the hint's style already says.
      const plain = titleText.toLowerCase().replace(/[^a-z]/g, '');
      const title = titleText && plain !== type && !(type === 'seealso' && plain === 'seealso') ? `**${td.escape(titleText)}**\n\n` : '';
      const body = `${title}${content.trim()}`;
      if (nestedContext(el(node))) return `\n\n${quote(body)}\n\n`;
      return `\n\n{% hint style="${HINT_STYLE[type] ?? 'info'}" %}\n${body}\n{% endhint %}\n\n`;
    },
  });

  td.addRule('tabSet', {
    filter: (node) => isTabSet(el(node)),
    replacement: (content, node) => {
      const tabs = tabsOf(el(node));
      if (!tabs.length) return content;
      const parts = tabs.map((t) => ({ title: t.title, md: td.turndown(t.panel.innerHTML).trim() }));
      if (nestedContext(el(node))) return `\n\n${parts.map((p) => `**${td.escape(p.title)}**\n\n${p.md}`).join('\n\n')}\n\n`;
      const body = parts.map((p) => `{% tab title="${attr(p.title)}" %}\n${p.md}\n{% endtab %}`).join('\n\n');
      return `\n\n{% tabs %}\n${body}\n{% endtabs %}\n\n`;
    },
  });
}
