// GitBook's prompt block (`{% prompt description="…" icon="…" openInAIProviders="true"
// defaultExpanded="hidden|partial|full" %}` around one code block) as readers see it: a titled box
// (icon and description) holding the prompt as a code block (the platform's code renderer: colours
// and, on the site, its copy button), without any script:
// - `hidden` (the description's default): a closed <details>, the description its summary;
// - `full`: the same, open;
// - `partial`: the first lines shown, the rest behind a "Show full prompt" toggle (a checkbox and
//   CSS, as the tabs are); printed, the whole prompt shows.
// `openInAIProviders` adds links that open the prompt in ChatGPT or Claude (plain links: nothing is
// sent anywhere unless the reader follows one).
import type { Nodes } from 'mdast';
import type { Element, ElementContent, Properties } from 'hast';
import type { Block, TagNode } from '../content/markdown/parse.js';
import { iconElement } from './icons.js';

export type PromptExpansion = 'hidden' | 'partial' | 'full';

/** Longest prompt text put in an "Open in …" link (URLs past a few thousand characters break). */
const MAX_LINK_PROMPT = 4000;

function el(tagName: string, properties: Properties, children: ElementContent[]): Element {
  return { type: 'element', tagName, properties, children };
}
const text = (value: string): ElementContent => ({ type: 'text', value });

/** The prompt's text: its first code block's (fenced, or in a `{% code %}` frame), else the body as written. */
export function promptText(node: TagNode): string {
  const todo: (Block | Nodes)[] = [...node.children];
  while (todo.length) {
    const n = todo.shift()!;
    if (n.type === 'code') return n.value;
    if ('children' in n && n.type === 'gitbookTag') todo.unshift(...(n.children as Block[]));
  }
  return node.raw.trim();
}

export function promptExpansion(value: string | undefined): PromptExpansion {
  return value === 'partial' || value === 'full' ? value : 'hidden';
}

/**
 * The prompt block. `body` is its content as rendered (the code block); `id` is unique in the page
 * (the partial toggle's checkbox).
 */
export function promptElement(node: TagNode, body: ElementContent[], id: string): Element {
  const a = node.attrs;
  const mode = promptExpansion(a.defaultExpanded);
  const description = a.description || 'Prompt';
  // The named icon when this renderer has it (GitBook's default, rectangle-terminal, is a Pro icon): else a terminal.
  const icon = iconElement(a.icon, 'prompt-icon') ?? iconElement('terminal', 'prompt-icon');
  const head: ElementContent[] = [...(icon ? [icon] : []), el('span', { className: ['prompt-description'] }, [text(description)])];
  const content = body.length ? body : [el('pre', {}, [el('code', {}, [text(promptText(node))])])];
  const actions: ElementContent[] = [];
  if (a.openInAIProviders === 'true') {
    const q = encodeURIComponent(promptText(node).slice(0, MAX_LINK_PROMPT));
    const link = (href: string, label: string) => el('a', { href, target: '_blank', rel: ['noopener', 'noreferrer'] }, [text(label)]);
    actions.push(
      el('p', { className: ['prompt-actions'] }, [
        link(`https://chatgpt.com/?q=${q}`, 'Open in ChatGPT'),
        text(' '),
        link(`https://claude.ai/new?q=${q}`, 'Open in Claude'),
      ]),
    );
  }
  if (mode === 'partial') {
    return el('div', { className: ['prompt', 'prompt-partial'] }, [
      el('p', { className: ['prompt-head'] }, head),
      el('input', { type: 'checkbox', id, className: ['prompt-toggle'] }, []),
      el('div', { className: ['prompt-body'] }, content),
      el('label', { htmlFor: [id], className: ['prompt-more'] }, [text('Show full prompt')]),
      ...actions,
    ]);
  }
  return el('details', { className: ['prompt', `prompt-${mode}`], ...(mode === 'full' ? { open: true } : {}) }, [
    el('summary', { className: ['prompt-head'] }, head),
    el('div', { className: ['prompt-body'] }, content),
    ...actions,
  ]);
}

/** The prompt block's CSS (light colours, the site's theme variables where it has them). */
export const PROMPT_CSS = `
.prompt { border: 1px solid var(--line, #d9dce1); border-radius: var(--radius, 6px); padding: 4px 12px; margin: 0 0 0.8em; }
.prompt-head { display: flex; align-items: center; gap: 0.5em; font-weight: 600; margin: 6px 0; cursor: pointer; }
p.prompt-head { cursor: default; }
.prompt-head .prompt-icon { color: var(--primary, #1a56b0); }
.prompt-body { margin: 0 0 6px; }
.prompt-toggle { position: absolute; opacity: 0; width: 1px; height: 1px; }
.prompt-toggle:not(:checked) ~ .prompt-body { max-height: 7.5em; overflow: hidden;
  -webkit-mask-image: linear-gradient(to bottom, #000 60%, transparent); mask-image: linear-gradient(to bottom, #000 60%, transparent); }
.prompt-toggle:checked ~ .prompt-more { display: none; }
.prompt-more { display: inline-block; cursor: pointer; color: var(--link, var(--primary, #1a56b0)); margin: 0 0 6px; }
.prompt-toggle:focus-visible ~ .prompt-more { outline: 2px solid var(--primary, #1a56b0); }
.prompt-actions { display: flex; gap: 1em; margin: 0 0 6px; font-size: 0.9em; }
@media print {
  .prompt-toggle:not(:checked) ~ .prompt-body { max-height: none; -webkit-mask-image: none; mask-image: none; }
  .prompt-more { display: none; }
}
`;
