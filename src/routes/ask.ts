// Ask (the 0.202.0 description): askInOrganization (JSON), streamAskInOrganization and
// streamAskInSite (Server-Sent Events: one `data:` event per step, each a SearchAIAnswerStream
// `{"type":"answer","answer":{...}}` holding the whole answer so far; then `event: done`; a failure
// after the stream began is an `event: error` with the API's error body, as @gitbook/api reads it).
import { Readable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import type { RouteDef, Reply } from '../http/route.js';
import { route, ok } from '../http/route.js';
import { entityId } from '../http/validate.js';
import { errorBody, errorReply } from '../http/errors.js';
import { askInOrganization, streamAskInOrganization, streamAskInSite, type AiAnswer } from '../services/ask.js';
import type { Logger } from '../log.js';

const format = z.enum(['markdown', 'document']).default('markdown');
const details = z.enum(['true', 'false']).optional();
const questionText = z
  .string({ message: 'is required' })
  .max(512)
  .refine((s) => s.trim() !== '', { message: 'must not be empty' });

const sse = (event: string | null, data: unknown) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

function eventStream(
  res: ServerResponse,
  abort: AbortController,
  steps: AsyncGenerator<{ type: 'answer'; answer: AiAnswer }>,
  log: Logger,
): Reply {
  res.on('close', () => abort.abort());
  async function* body() {
    try {
      for await (const step of steps) yield sse(null, step);
      yield sse('done', {});
    } catch (err) {
      const known = errorReply(err);
      if (!known) log.error({ err }, 'ask stream failed');
      yield sse('error', errorBody(known?.status ?? 500, known?.message ?? 'The answer could not be completed'));
    }
  }
  return {
    status: 200,
    stream: Readable.from(body(), { objectMode: false }),
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
  };
}

export const askRoutes: RouteDef[] = [
  route({
    method: 'POST',
    path: '/v1/orgs/:organizationId/ask',
    summary: 'Ask a question across the spaces the caller can read (askInOrganization)',
    params: { organizationId: entityId },
    query: { format, details },
    body: z.object({ query: questionText, previousQueries: z.array(z.string().max(512)).max(10).optional() }),
    handler: async ({ app, principal, params, query, body }) =>
      ok(await askInOrganization(app, principal, params.organizationId, body.query, query.format)),
  }),
  route({
    method: 'GET',
    path: '/v1/orgs/:organizationId/ask/stream',
    summary: 'Ask a question across the spaces the caller can read, streamed as Server-Sent Events (streamAskInOrganization)',
    params: { organizationId: entityId },
    query: { query: questionText, format, details },
    handler: async ({ app, principal, params, query, res, log }) => {
      const abort = new AbortController();
      const steps = await streamAskInOrganization(app, principal, params.organizationId, query.query, query.format, abort.signal);
      return eventStream(res, abort, steps, log);
    },
  }),
  route({
    method: 'POST',
    path: '/v1/orgs/:organizationId/sites/:siteId/ask',
    summary: "Ask a question over a site's content, streamed as Server-Sent Events (streamAskInSite)",
    params: { organizationId: entityId, siteId: entityId },
    query: { format },
    body: z.object({
      question: questionText,
      scope: z
        .object({
          mode: z.enum(['default', 'all', 'specific', 'current']),
          currentSiteSpace: z.string().max(128).optional(),
          siteSpaceIds: z.array(z.string().max(128)).max(100).optional(),
          restrictTo: z.string().max(64).optional(),
        })
        .optional(),
      context: z.object({ siteSpaceId: z.string().max(128).optional(), goal: z.string().max(1024).optional() }).optional(),
      session: z.object({ visitorId: z.string().max(256), sessionId: z.string().max(256) }).optional(),
    }),
    handler: async ({ app, principal, params, query, body, res, log }) => {
      const abort = new AbortController();
      const steps = await streamAskInSite(app, principal, params.organizationId, params.siteId, body, query.format, abort.signal);
      return eventStream(res, abort, steps, log);
    },
  }),
];
