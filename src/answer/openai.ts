// An OpenAI-compatible chat endpoint (`POST {url}/chat/completions`, or the URL itself when it
// already names it). The prompt holds the question and the numbered passages only (bounded to
// `maxPromptChars`); the model is told to cite them as [n], and the citations become links. The
// key travels in the Authorization header only, never in an error or a log line.
import { safeRequest } from '../net/safe-request.js';
import { upstream } from '../core/errors.js';
import { linkText } from './extractive.js';
import type { Answer, AnswerBackend, Passage } from './types.js';

export interface OpenAiSettings {
  url: string;
  model?: string;
  apiKey?: string;
  timeoutMs: number;
  maxPromptChars: number;
  allowPrivate: boolean;
}

const SYSTEM =
  'You answer questions about a documentation site using only the numbered passages given. ' +
  'Cite the passages you use as [n]. If the passages do not answer the question, say so. Answer in Markdown, briefly.';

function endpoint(url: string): string {
  const u = url.replace(/\/+$/, '');
  return /\/chat\/completions$/.test(u) ? u : `${u}/chat/completions`;
}

/** The user message: the question, then as many whole passages as fit in `max` characters. */
export function buildPrompt(question: string, passages: Passage[], max: number): { text: string; offered: number } {
  let text = `Question: ${question}\n\nPassages:\n`;
  let offered = 0;
  for (const [i, p] of passages.entries()) {
    const block = `\n[${i + 1}] ${p.title}${p.section ? ` (${p.section})` : ''}\n${p.text}\n`;
    if (text.length + block.length > max) {
      const room = max - text.length - 40;
      if (offered === 0 && room > 200) {
        text += `${block.slice(0, room)}…\n`;
        offered = 1;
      }
      break;
    }
    text += block;
    offered++;
  }
  return { text, offered };
}

/**
 * The model's own Markdown links kept only when they point at a passage's page: a link to anywhere
 * else (an instruction hidden in a page, a made-up URL) becomes its text.
 */
export function keepOwnLinks(markdown: string, passages: Passage[]): string {
  const allowed = new Set(passages.map((p) => p.url));
  return markdown.replace(/(!?)\[((?:\\.|[^\]\\])*)\]\(([^)\s]*)(?:\s+"[^"]*")?\)/g, (m, bang: string, text: string, url: string) =>
    !bang && allowed.has(url.replace(/#.*$/, '')) ? m : text,
  );
}

/** The model's text with citations as links (those of passages offered) and the passages cited. */
function cite(content: string, passages: Passage[], offered: number): { markdown: string; used: number[] } {
  const used = new Set<number>();
  const markdown = keepOwnLinks(content.slice(0, MAX_ANSWER_CHARS), passages).replace(/\[(\d{1,2})\](?!\()/g, (_m, n: string) => {
    const i = Number(n) - 1;
    if (i < 0 || i >= offered) return '';
    used.add(i);
    return `[[${n}]](${passages[i].url})`;
  });
  return { markdown, used: [...used].sort((a, b) => a - b) };
}

const MAX_ANSWER_CHARS = 20_000;
/** A streamed answer is shown again once it grew by this many characters (not per token). */
const STREAM_STEP_CHARS = 60;

/**
 * Reads an OpenAI-style event stream (`data: {"choices":[{"delta":{"content":"…"}}]}` lines, then
 * `data: [DONE]`) as it arrives, calling `onText` with the text so far.
 */
function deltaReader(onText: (sofar: string) => void) {
  let pending = '';
  let text = '';
  let shown = 0;
  return {
    feed(chunk: Buffer) {
      pending += chunk.toString('utf8');
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data === '[DONE]') continue;
        try {
          const delta = (JSON.parse(data) as { choices?: { delta?: { content?: unknown } }[] }).choices?.[0]?.delta?.content;
          if (typeof delta === 'string' && text.length < MAX_ANSWER_CHARS) text += delta;
        } catch {
          /* a line that is not JSON: skipped */
        }
        if (text.length - shown >= STREAM_STEP_CHARS) {
          shown = text.length;
          onText(text);
        }
      }
    },
    text: () => text,
  };
}

export function openAiBackend(s: OpenAiSettings): AnswerBackend {
  return {
    name: 'openai',
    async answer(question: string, passages: Passage[], o): Promise<Answer> {
      const { text, offered } = buildPrompt(question, passages, s.maxPromptChars);
      const headers: Record<string, string> = {};
      if (s.apiKey) headers.authorization = `Bearer ${s.apiKey}`;
      // Streamed when the caller shows the answer as it grows and the endpoint streams (SSE); an
      // endpoint that answers JSON anyway is read whole.
      const streaming = Boolean(o.onText);
      let streamed: ReturnType<typeof deltaReader> | undefined;
      let res;
      try {
        res = await safeRequest(endpoint(s.url), {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: streaming ? 'text/event-stream, application/json' : 'application/json',
            ...headers,
          },
          body: JSON.stringify({
            ...(s.model ? { model: s.model } : {}),
            temperature: 0,
            ...(streaming ? { stream: true } : {}),
            messages: [
              { role: 'system', content: SYSTEM },
              { role: 'user', content: text },
            ],
          }),
          timeoutMs: s.timeoutMs,
          maxBytes: 1024 * 1024,
          allowPrivate: s.allowPrivate,
          signal: o.signal,
          onData: (chunk, r) => {
            if (!streaming || (r.statusCode ?? 0) >= 300 || !/text\/event-stream/.test(String(r.headers['content-type']))) return;
            streamed ??= deltaReader((sofar) => o.onText?.(cite(sofar, passages, offered).markdown));
            streamed.feed(chunk);
          },
        });
      } catch (err) {
        throw upstream(`The answering model could not be reached: ${(err as Error).message.replace(s.apiKey ?? '\u0000', '[key]')}`);
      }
      if (res.status < 200 || res.status >= 300) throw upstream(`The answering model answered HTTP ${res.status}`);
      let content: unknown;
      if (streamed) content = streamed.text();
      else {
        try {
          content = (JSON.parse(res.body.toString('utf8')) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message
            ?.content;
        } catch {
          /* below */
        }
      }
      if (typeof content !== 'string' || !content) throw upstream('The answering model answered no text');
      // [n] citations of passages offered become links; others are dropped.
      const cited = cite(content, passages, offered);
      let markdown = cited.markdown;
      const list = cited.used;
      if (list.length)
        markdown += `\n\nSources:\n${list.map((i) => `${i + 1}. [${linkText(passages[i].title)}](${passages[i].url})`).join('\n')}`;
      o.onText?.(markdown);
      return { markdown, used: list };
    },
  };
}
