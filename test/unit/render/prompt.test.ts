// The prompt block as readers see it (src/render/prompt.ts): a titled box holding the prompt as a
// code block, expanded as `defaultExpanded` says without any script; an `if` tag that reaches the
// renderer unevaluated shows nothing.
import { describe, expect, it } from 'vitest';
import { pageBodyHtml } from '../../../src/render/html.js';
import { plainText } from '../../../src/content/markdown.js';

const render = (md: string) => pageBodyHtml(md, { anchor: '', images: new Map(), links: new Map(), files: new Map() });
const prompt = (opts: string) =>
  `{% prompt description="Summarize the page"${opts} %}\n\`\`\`markdown\nSummarize <this> page.\n\`\`\`\n{% endprompt %}\n`;

describe('prompt block', () => {
  it('hidden by default: a closed <details> titled by the description, the prompt as a code block', () => {
    const html = render(prompt(''));
    expect(html).toMatch(/<details class="prompt prompt-hidden">/);
    expect(html).toMatch(/<summary class="prompt-head">.*Summarize the page<\/span><\/summary>/);
    expect(html).toContain('code-block');
    expect(html).toContain('Summarize');
    expect(html).not.toContain('{%');
  });

  it('full: open; partial: a toggle, no details; links to AI providers when asked', () => {
    expect(render(prompt(' defaultExpanded="full"'))).toMatch(/<details class="prompt prompt-full" open>/);
    const partial = render(prompt(' defaultExpanded="partial" openInAIProviders="true"'));
    expect(partial).toMatch(/<div class="prompt prompt-partial">/);
    expect(partial).toMatch(/<input type="checkbox" id="block-prompt-\d+" class="prompt-toggle">/);
    expect(partial).toContain('Show full prompt');
    expect(partial).toContain(`href="https://chatgpt.com/?q=${encodeURIComponent('Summarize <this> page.')}"`);
    expect(partial).toContain('Open in Claude');
  });

  it('an icon: the named one, else a terminal', () => {
    const robot = render(prompt(' icon="robot"'));
    const fallback = render(prompt(' icon="rectangle-terminal"'));
    expect(robot).toMatch(/<svg class="icon prompt-icon"/);
    expect(fallback).toMatch(/<svg class="icon prompt-icon"/);
    expect(robot).not.toBe(fallback);
  });

  it('its description and text are plain text for search', () => {
    const text = plainText(prompt(''));
    expect(text).toContain('Summarize the page');
    expect(text).toContain('Summarize <this> page.');
    expect(text).not.toContain('{%');
  });

  it('an unevaluated {% if %} renders nothing of its content', () => {
    const html = render('Before\n\n{% if visitor.claims.plan === "pro" %}\nSecret\n{% endif %}\n\nAfter\n');
    expect(html).toContain('Before');
    expect(html).toContain('After');
    expect(html).not.toContain('Secret');
    expect(html).not.toContain('{%');
  });
});
