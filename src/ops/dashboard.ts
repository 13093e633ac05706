import type { IncomingMessage, ServerResponse } from 'node:http';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import type { AppContext } from '../context.js';

/**
 * The job dashboard (bull-board) as a node:http handler mounted under config.adminPath. Every
 * queue is shown with retry, clean and pause. Access is checked by the server before this runs.
 */
export function createDashboard(app: AppContext): (req: IncomingMessage, res: ServerResponse) => void {
  const base = app.config.adminPath;
  const adapter = new HonoAdapter(serveStatic);
  adapter.setBasePath(base);
  createBullBoard({
    queues: app.jobs.allQueues().map((q) => new BullMQAdapter(q, { readOnlyMode: false, allowRetries: true })),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: 'Docs platform jobs' } },
  });
  const hono = new Hono();
  hono.route(base, adapter.registerPlugin());
  return getRequestListener(hono.fetch);
}
