// Loopback servers speaking the real wire APIs of LibreTranslate (`POST /translate`), DeepL
// (`POST /v2/translate`) and OpenAI-compatible chat (`POST /v1/chat/completions`). They
// "translate" with the pseudo-localiser (placeholders kept), record every request, check the key,
// and can be told to fail the next requests with a status (and a Retry-After).
import type http from 'node:http';
import { serve } from './http.js';
import { pseudoLocalize } from '../../src/translate/pseudo.js';

export type FakeKind = 'libretranslate' | 'deepl' | 'openai';

export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export interface FakeProvider {
  url: string;
  requests: RecordedRequest[];
  /** Segments received across all successful requests. */
  segments(): string[];
  /** Answer the next `count` requests with `status` (and `Retry-After: retryAfter` when given). */
  failNext(count: number, status: number, retryAfter?: string): void;
  /** Answer with the wrong number of segments for the next `count` requests. */
  malformNext(count: number): void;
  /** Drop the `<x …/>` placeholders from the translations of the next `count` requests. */
  breakNext(count: number): void;
  close(): Promise<void>;
}

export async function startFakeProvider(kind: FakeKind, key?: string): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  const accepted: string[][] = [];
  let failures: { count: number; status: number; retryAfter?: string } = { count: 0, status: 0 };
  let malformed = 0;
  let broken = 0;
  const path = { libretranslate: '/translate', deepl: '/v2/translate', openai: '/v1/chat/completions' }[kind];
  const srv = await serve((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(400, { error: 'bad json' });
      }
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.method !== 'POST' || req.url !== path) return send(404, { error: 'not found' });
      if (failures.count > 0) {
        failures.count--;
        return send(
          failures.status,
          { error: 'try later' },
          failures.retryAfter !== undefined ? { 'retry-after': failures.retryAfter } : {},
        );
      }
      const authorized =
        !key ||
        (kind === 'libretranslate' && body.api_key === key) ||
        (kind === 'deepl' && req.headers.authorization === `DeepL-Auth-Key ${key}`) ||
        (kind === 'openai' && req.headers.authorization === `Bearer ${key}`);
      if (!authorized) return send(kind === 'openai' ? 401 : 403, { error: 'Invalid API key' });
      let segments: string[];
      if (kind === 'libretranslate') segments = body.q;
      else if (kind === 'deepl') segments = body.text;
      else segments = JSON.parse(body.messages[body.messages.length - 1].content).segments;
      accepted.push(segments);
      let out = segments.map(pseudoLocalize);
      if (broken > 0) {
        broken--;
        out = out.map((o) => o.replace(/<x id="\d+"\/>/g, ''));
      }
      if (malformed > 0) {
        malformed--;
        out = out.slice(1);
      }
      if (kind === 'libretranslate') return send(200, { translatedText: out });
      if (kind === 'deepl') return send(200, { translations: out.map((text) => ({ detected_source_language: 'EN', text })) });
      return send(200, {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify({ segments: out }) } }],
      });
    });
  });
  return {
    url: srv.url,
    requests,
    segments: () => accepted.flat(),
    failNext: (count, status, retryAfter) => {
      failures = { count, status, retryAfter };
    },
    malformNext: (count) => {
      malformed = count;
    },
    breakNext: (count) => {
      broken = count;
    },
    close: srv.close,
  };
}
