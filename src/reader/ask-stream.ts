// The reader's Ask box, streamed (`…/~site/ask/stream?q=`): Server-Sent Events, one
// `event: answer` per step the answering service emits (`{"html"}`: the whole answer so far, rendered
// as the JSON endpoint renders `html`), then `event: done` (`{question, html, sources}`); a failure
// after the stream began is `event: error` with the API's error body. Each step is rendered once
// (only its blocks that changed), and a reader slower than the back-end gets only the newest step
// (the service skips stale ones): the rendering never runs more often than the service emits. The
// answer stops when the reader goes away.
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { AppContext } from '../context.js';
import type { Reply } from '../http/route.js';
import { errorBody, errorReply } from '../http/errors.js';
import { streamAskReaderSite } from '../services/ask.js';
import { growingAnswerHtml } from './answer-html.js';
import { commonHeaders, type Reader } from './access.js';

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** Access, the `ai.mode` gate and the question's bound are the caller's (as for the JSON endpoint). */
export async function askStreamReply(app: AppContext, req: IncomingMessage, reader: Reader, q: string): Promise<Reply> {
  const abort = new AbortController();
  // The client closing the connection (an aborted fetch closes it) stops the back-end.
  const socket = req.socket;
  const gone = () => abort.abort();
  socket.once('close', gone);
  let answer;
  try {
    answer = await streamAskReaderSite(app, reader.site, reader.ctx, q, abort.signal);
  } catch (err) {
    socket.off('close', gone);
    throw err;
  }
  const { question, steps } = answer;
  const render = growingAnswerHtml();
  async function* body() {
    // A comment first: the reader has the status and headers at once, before the back-end's first words.
    yield ': answering\n\n';
    try {
      for await (const step of steps) {
        const html = render(step.markdown);
        yield step.sources ? sse('done', { question, html, sources: step.sources }) : sse('answer', { html });
      }
    } catch (err) {
      const known = errorReply(err);
      if (!known && !abort.signal.aborted) app.log.error({ err }, 'reader ask stream failed');
      yield sse('error', errorBody(known?.status ?? 500, known?.message ?? 'The answer could not be completed'));
    } finally {
      socket.off('close', gone);
    }
  }
  const stream = Readable.from(body(), { objectMode: false });
  // A stream whose reader left is destroyed (the generator ends at its next step).
  abort.signal.addEventListener('abort', () => stream.destroy(), { once: true });
  return {
    status: 200,
    stream,
    headers: {
      ...commonHeaders(reader),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'private, no-store',
      'x-accel-buffering': 'no',
      'x-robots-tag': 'noindex',
    },
  };
}
