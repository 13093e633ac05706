// Graceful shutdown of the API's HTTP/1.1 server, so that a SIGTERM under keep-alive load fails no
// request of a well-behaved client.
//
// What goes wrong with a plain `server.close()`: it destroys every idle keep-alive socket at once,
// and a busy client's socket is "idle" for the instant between one response and its next request,
// so that request is reset; the sockets still serving keep living (their responses do not say
// `Connection: close`), their clients keep sending, and the hard close at the deadline resets
// them; and whatever closes the database pool when `close()` returns closes it under handlers
// still running.
//
// What this does instead, on `drain()`:
// 1. Stop listening: new connections are refused, established ones stay.
// 2. Every response not yet started, and every request arriving on a kept-alive socket from now
//    on, is answered normally with `Connection: close`; Node closes the socket after it, and the
//    client knows not to reuse it.
// 3. A socket with no request in progress is closed once it has been idle for `idleGraceMs`
//    (counted from its last response, so sockets idle for long close at once). A busy client
//    sends its next request well within the grace and gets `Connection: close` on it instead of a
//    reset; the close itself waits for one turn of the event loop's I/O phase, so a request
//    already received but not yet parsed is served rather than dropped.
// 4. Resolve once no connection is left and every request handler has returned (not merely its
//    socket closed): only then may the caller close the database pool and Redis.
// 5. At `timeoutMs` (SHUTDOWN_TIMEOUT_MS), destroy what is left and resolve anyway.
import net from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

interface DrainOptions {
  /** Deadline of the whole drain; remaining connections are destroyed then. */
  timeoutMs: number;
  /** How long a keep-alive socket with no request may stay open once draining. */
  idleGraceMs?: number;
  /** Called when the deadline forced the end: how many connections and handlers were cut. */
  onTimeout?: (left: { connections: number; handlers: number }) => void;
}

interface Drainer {
  /** True once `drain()` was called. */
  readonly draining: boolean;
  /** Stop accepting and finish what is in flight (see the file comment). Idempotent. */
  drain(): Promise<void>;
}

interface Conn {
  /** Requests received on this socket whose response has not closed yet. */
  active: Set<ServerResponse>;
  idleSince: number;
  timer?: NodeJS.Timeout;
}

/**
 * Serve `server`'s requests with `handle` and make the server drainable. `handle` must settle when
 * the request is done with (its promise is what "the handler returned" means above).
 */
export function drainable(
  server: Server,
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  opts: DrainOptions,
): Drainer {
  const idleGraceMs = Math.max(0, Math.min(opts.idleGraceMs ?? 1_000, opts.timeoutMs));
  const conns = new Map<net.Socket, Conn>();
  let handlers = 0;
  let draining = false;
  let finished: Promise<void> | null = null;
  let settle: (() => void) | null = null;

  const maybeDone = () => {
    if (draining && settle && conns.size === 0 && handlers === 0) settle();
  };

  const closeWhenIdle = (socket: net.Socket, conn: Conn) => {
    clearTimeout(conn.timer);
    const wait = Math.max(0, conn.idleSince + idleGraceMs - Date.now());
    conn.timer = setTimeout(() => {
      // Timers run before the I/O poll phase: let one poll pass first, so bytes of a request that
      // already arrived are parsed (making the socket busy) before deciding it is idle.
      setImmediate(() => {
        if (conn.active.size === 0 && !socket.destroyed) socket.destroy();
      });
    }, wait);
  };

  server.on('connection', (socket: net.Socket) => {
    const conn: Conn = { active: new Set(), idleSince: Date.now() };
    conns.set(socket, conn);
    socket.once('close', () => {
      clearTimeout(conn.timer);
      conns.delete(socket);
      maybeDone();
    });
    if (draining) closeWhenIdle(socket, conn);
  });

  const handlerDone = () => {
    handlers--;
    maybeDone();
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const conn = conns.get(req.socket);
    if (conn) {
      clearTimeout(conn.timer);
      conn.active.add(res);
      res.once('close', () => {
        conn.active.delete(res);
        if (conn.active.size === 0) {
          conn.idleSince = Date.now();
          if (draining && !req.socket.destroyed) closeWhenIdle(req.socket, conn);
        }
      });
    }
    if (draining) res.setHeader('connection', 'close');
    handlers++;
    // The handler answers its own errors; a rejection here must not crash the process.
    handle(req, res).then(handlerDone, handlerDone);
  });

  return {
    get draining() {
      return draining;
    },
    drain() {
      if (finished) return finished;
      draining = true;
      finished = new Promise<void>((resolve) => {
        const deadline = setTimeout(() => {
          if (conns.size || handlers) opts.onTimeout?.({ connections: conns.size, handlers });
          for (const socket of conns.keys()) socket.destroy();
          settle = null;
          resolve();
        }, opts.timeoutMs);
        settle = () => {
          clearTimeout(deadline);
          settle = null;
          resolve();
        };
      });
      // Stop listening only: http.Server#close() would also destroy every idle socket at once.
      if (server.listening) net.Server.prototype.close.call(server);
      for (const [socket, conn] of conns) {
        for (const res of conn.active) if (!res.headersSent) res.setHeader('connection', 'close');
        if (conn.active.size === 0) closeWhenIdle(socket, conn);
      }
      maybeDone();
      return finished;
    },
  };
}
