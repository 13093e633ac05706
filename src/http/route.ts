import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/principal.js';
import type { Logger } from '../log.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Streamed body (blobs); `body` is ignored when set. */
  stream?: Readable;
  /** A body already serialized as JSON (cached responses); `body` is ignored when set. */
  json?: string;
  /**
   * A body already encoded, in parts written one after the other (a cached pages tree: see
   * src/util/byte-parts.ts), with the content type in `headers`; `body` is ignored when set.
   */
  chunks?: readonly Buffer[];
}

/** What a token-free route's handler gets: no principal, since nobody was authenticated. */
interface PublicRequestContext<P, Q, B> {
  app: AppContext;
  req: IncomingMessage;
  res: ServerResponse;
  params: P;
  query: Q;
  body: B;
  log: Logger;
  requestId: string;
}

/** What an authenticated route's handler gets: the principal of the bearer token. */
interface RequestContext<P, Q, B> extends PublicRequestContext<P, Q, B> {
  principal: Principal;
}

type Shape = Record<string, z.ZodType>;
type Out<S extends Shape | undefined> = S extends Shape ? z.output<z.ZodObject<S>> : Record<string, never>;
type BodyOut<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteDef<
  P extends Shape | undefined = any,
  Q extends Shape | undefined = any,
  B = any,
  A extends boolean | undefined = boolean | undefined,
> {
  method: Method;
  path: string;
  /** Label for metrics and logs; defaults to the path pattern. */
  name?: string;
  /** Group in the generated API reference (GET /openapi.json); set per route file. */
  tag?: string;
  /** One line for the API reference; defaults to the method and path. */
  summary?: string;
  /** false: no bearer token needed (health, metrics, published views); the handler gets no principal. */
  auth?: A;
  /** true: the handler reads the request body itself (an HTML form); the server leaves it unread. */
  rawBody?: boolean;
  /** true: besides a bearer token, the session cookie of an SSO login authenticates the caller. */
  session?: boolean;
  /** false: not counted by the rate limit (operators' probes and scrapes). */
  rateLimited?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /** A body is required (400 when absent). Defaults to true when a body schema is given. */
  bodyRequired?: boolean;
  handler: (
    ctx: [A] extends [false] ? PublicRequestContext<Out<P>, Out<Q>, BodyOut<B>> : RequestContext<Out<P>, Out<Q>, BodyOut<B>>,
  ) => Promise<Reply>;
}

/** Identity function that types a route's handler from its schemas (and from `auth: false`). */
export function route<
  P extends Shape | undefined = undefined,
  Q extends Shape | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  A extends boolean | undefined = undefined,
>(def: RouteDef<P, Q, B, A>): RouteDef<P, Q, B, A> {
  return def;
}

export const ok = (body: unknown, headers?: Record<string, string>): Reply => ({ status: 200, body, headers });
export const okJson = (json: string): Reply => ({ status: 200, json });
export const created = (body: unknown, headers?: Record<string, string>): Reply => ({ status: 201, body, headers });
export const noContent = (headers?: Record<string, string>): Reply => ({ status: 204, headers });

/**
 * A user-supplied file's bytes: its own type, size and name, never sniffed, and sandboxed, so an
 * uploaded HTML or SVG file cannot run script on this origin. `cacheControl` says how long the link holds.
 */
export function userFileReply(f: { stream: Readable; size: number; name: string; contentType: string }, cacheControl: string): Reply {
  return {
    status: 200,
    stream: f.stream,
    headers: {
      'content-type': f.contentType,
      'content-length': String(f.size),
      'content-disposition': `inline; filename*=UTF-8''${encodeURIComponent(f.name)}`,
      'cache-control': cacheControl,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox",
    },
  };
}
