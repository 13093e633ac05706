// An answer's Markdown as HTML for the Ask box: only what answers contain (paragraphs, quotes,
// numbered lists, links, inline code), every text escaped, links kept only when they are http(s)
// or site-relative. Nothing else of Markdown is interpreted, so nothing in a quote can inject.
import { escapeHtml as esc } from '../render/html.js';

function inline(text: string): string {
  let out = '';
  let last = 0;
  const re = /\[((?:\\.|[^\]\\])*)\]\(([^)\s]+)\)|`([^`]+)`/g;
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

export function answerHtml(markdown: string): string {
  const blocks = markdown.split(/\n{2,}/);
  const out: string[] = [];
  for (const block of blocks) {
    const lines = block.split('\n');
    if (lines.every((l) => l.startsWith('>'))) {
      const text = lines.map((l) => l.replace(/^>\s?/, '')).filter((l) => l.trim());
      out.push(`<blockquote>${text.map((l) => `<p>${inline(l)}</p>`).join('')}</blockquote>`);
    } else if (lines.length > 1 && lines.slice(1).every((l) => /^\d+\.\s/.test(l))) {
      out.push(
        `<p>${inline(lines[0])}</p><ol>${lines
          .slice(1)
          .map((l) => `<li>${inline(l.replace(/^\d+\.\s/, ''))}</li>`)
          .join('')}</ol>`,
      );
    } else if (lines.every((l) => /^\d+\.\s/.test(l))) {
      out.push(`<ol>${lines.map((l) => `<li>${inline(l.replace(/^\d+\.\s/, ''))}</li>`).join('')}</ol>`);
    } else {
      out.push(`<p>${lines.map(inline).join('<br>')}</p>`);
    }
  }
  return out.join('\n');
}
