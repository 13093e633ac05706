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

export function openAiBackend(s: OpenAiSettings): AnswerBackend {
  return {
    name: 'openai',
    async answer(question: string, passages: Passage[], o): Promise<Answer> {
      const { text, offered } = buildPrompt(question, passages, s.maxPromptChars);
      const headers: Record<string, string> = {};
      if (s.apiKey) headers.authorization = `Bearer ${s.apiKey}`;
      let res;
      try {
        res = await safeRequest(endpoint(s.url), {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({
            ...(s.model ? { model: s.model } : {}),
            temperature: 0,
            messages: [
              { role: 'system', content: SYSTEM },
              { role: 'user', content: text },
            ],
          }),
          timeoutMs: s.timeoutMs,
          maxBytes: 1024 * 1024,
          allowPrivate: s.allowPrivate,
          signal: o.signal,
        });
      } catch (err) {
        throw upstream(`The answering model could not be reached: ${(err as Error).message.replace(s.apiKey ?? '\u0000', '[key]')}`);
      }
      if (res.status < 200 || res.status >= 300) throw upstream(`The answering model answered HTTP ${res.status}`);
      let content: unknown;
      try {
        content = (JSON.parse(res.body.toString('utf8')) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message
          ?.content;
      } catch {
        /* below */
      }
      if (typeof content !== 'string') throw upstream('The answering model answered no text');
      // [n] citations of passages offered become links; others are dropped.
      const used = new Set<number>();
      let markdown = keepOwnLinks(content.slice(0, 20_000), passages).replace(/\[(\d{1,2})\](?!\()/g, (_m, n: string) => {
        const i = Number(n) - 1;
        if (i < 0 || i >= offered) return '';
        used.add(i);
        return `[[${n}]](${passages[i].url})`;
      });
      const list = [...used].sort((a, b) => a - b);
      if (list.length)
        markdown += `\n\nSources:\n${list.map((i) => `${i + 1}. [${linkText(passages[i].title)}](${passages[i].url})`).join('\n')}`;
      o.onText?.(markdown);
      return { markdown, used: list };
    },
  };
}
