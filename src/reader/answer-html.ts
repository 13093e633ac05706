// An answer's Markdown as HTML for the Ask box: only what answers contain (paragraphs, quotes,
// numbered lists, links, inline code), every text escaped, links kept only when they are http(s)
// or site-relative. Nothing else of Markdown is interpreted, so nothing in a quote can inject.
// A link's label is at most 512 characters (escapes and one level of brackets, as in `[[1]](url)`):
// a text full of unclosed brackets costs a bounded scan per bracket.
import { escapeHtml as esc } from '../render/html.js';

function inline(text: string): string {
  let out = '';
  let last = 0;
  const re = /\[((?:\\.|\[[^[\]\\]*\]|[^[\]\\]){0,512})\]\(([^)\s]+)\)|`([^`]+)`/g;
  for (let m; (m = re.exec(text));) {
    out += esc(text.slice(last, m.index));
    if (m[3] !== undefined) out += `<code>${esc(m[3])}</code>`;
    else {
      const label = m[1].replace(/\\([[\]\\])/g, '$1');
      const href = m[2];
      out += /^(https?:\/\/|\/)/i.test(href) && !/^\/[/\\]/.test(href) ? `<a href="${esc(href)}">${inline(label)}</a>` : esc(m[0]);
    }
    last = re.lastIndex;
  }
  return out + esc(text.slice(last));
}

function blockHtml(block: string): string {
  const lines = block.split('\n');
  if (lines.every((l) => l.startsWith('>'))) {
    const text = lines.map((l) => l.replace(/^>\s?/, '')).filter((l) => l.trim());
    return `<blockquote>${text.map((l) => `<p>${inline(l)}</p>`).join('')}</blockquote>`;
  }
  if (lines.length > 1 && lines.slice(1).every((l) => /^\d+\.\s/.test(l)))
    return `<p>${inline(lines[0])}</p><ol>${lines
      .slice(1)
      .map((l) => `<li>${inline(l.replace(/^\d+\.\s/, ''))}</li>`)
      .join('')}</ol>`;
  if (lines.every((l) => /^\d+\.\s/.test(l)))
    return `<ol>${lines.map((l) => `<li>${inline(l.replace(/^\d+\.\s/, ''))}</li>`).join('')}</ol>`;
  return `<p>${lines.map(inline).join('<br>')}</p>`;
}

export function answerHtml(markdown: string): string {
  return markdown
    .split(/\n{2,}/)
    .map(blockHtml)
    .join('\n');
}

/**
 * `answerHtml` for an answer that grows (each call the whole answer so far): a block (text between
 * blank lines) the previous call rendered is reused, so a step renders about what it added.
 */
export function growingAnswerHtml(): (markdown: string) => string {
  let previous = new Map<string, string>();
  return (markdown) => {
    const current = new Map<string, string>();
    const out = markdown.split(/\n{2,}/).map((block) => {
      const html = current.get(block) ?? previous.get(block) ?? blockHtml(block);
      current.set(block, html);
      return html;
    });
    previous = current;
    return out.join('\n');
  };
}
