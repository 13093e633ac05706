// Bodies that are not parsed: content beyond the limits of src/content/limits.ts (stored before they
// existed, imported from git, or written to the database directly), or whose parsing did not finish
// within MARKDOWN_TIMEOUT_MS. Each reader still gets the text, bounded and in linear time: as a code
// block (JSON documents), preformatted (HTML: published view, PDF), as one section (search). Bodies
// longer than LIMITS.pageChars are cut there, with a last line saying how much was left out.
import { LIMITS } from '../content/limits.js';
import type { DocumentBlockCodeLine, JSONDocument, Section } from '../content/markdown.js';
import { escapeHtml } from './html.js';

/** Most lines of the code block of a plain-text document (the rest is summarized in one line). */
const MAX_LINES = 10_000;

function cut(md: string): { text: string; omitted: number } {
  return md.length > LIMITS.pageChars
    ? { text: md.slice(0, LIMITS.pageChars), omitted: md.length - LIMITS.pageChars }
    : { text: md, omitted: 0 };
}

const omittedNote = (chars: number) => `… ${chars.toLocaleString('en-US')} more characters not shown (read the page as Markdown)`;

/** The body as one Markdown code block, one code line per line. */
export function plainDocument(md: string): JSONDocument {
  const { text, omitted } = cut(md);
  const lines = text.split('\n');
  let note = omitted ? omittedNote(omitted) : '';
  if (lines.length > MAX_LINES) {
    const rest = lines.length - MAX_LINES;
    lines.length = MAX_LINES;
    note = `… ${rest.toLocaleString('en-US')} more lines not shown (read the page as Markdown)`;
  }
  if (note) lines.push(note);
  let key = 1;
  const nodes: DocumentBlockCodeLine[] = lines.map((line) => ({
    object: 'block',
    type: 'code-line',
    key: `k${++key}`,
    data: {},
    nodes: [{ object: 'text', key: `k${++key}`, leaves: [{ object: 'leaf', text: line.replace(/\r$/, ''), marks: [] }] }],
  }));
  return { object: 'document', data: {}, nodes: [{ object: 'block', type: 'code', key: 'k1', data: { syntax: 'markdown' }, nodes }] };
}

/** The body preformatted, after a notice saying why (`reason` names the limit, or the time limit). */
export function plainHtml(md: string, reason: string): string {
  const { text, omitted } = cut(md);
  const notice = `<p class="content-limit"><em>This page is shown as plain text: ${escapeHtml(reason)}.</em></p>`;
  return `${notice}\n<pre class="plain-text">${escapeHtml(text)}${omitted ? `\n${escapeHtml(omittedNote(omitted))}` : ''}</pre>`;
}

/** The body as one untitled section of plain lines (whitespace collapsed, empty lines dropped). */
export function plainSections(md: string): Section[] {
  const { text } = cut(md);
  const body = text
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
  return body ? [{ id: '', title: '', depth: 0, body }] : [];
}
