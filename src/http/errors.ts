// The one place domain errors become HTTP: each kind's status, the error body the public API
// description gives (`{"error": {"code": <status>, "message"}}`), and the headers that go with it.
import { DomainError, type ErrorKind } from '../core/errors.js';

/** A failure only the HTTP edge knows (a method not allowed, an unsupported content type, a rate limit). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const STATUS_OF_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  gone: 410,
  limit: 413,
  unprocessable: 422,
  upstream: 502,
  unavailable: 503,
};

export function errorBody(status: number, message: string) {
  return { error: { code: status, message } };
}

export interface ErrorReply {
  status: number;
  message: string;
  headers: Record<string, string>;
}

/** The status, message and headers of a domain or HTTP error; null for anything else (a defect, a database error). */
export function errorReply(err: unknown): ErrorReply | null {
  if (err instanceof HttpError) return { status: err.status, message: err.message, headers: err.headers };
  if (!(err instanceof DomainError)) return null;
  const headers: Record<string, string> = {};
  if (err.kind === 'unauthenticated') headers['www-authenticate'] = 'Bearer';
  if (err.details.location) headers.location = err.details.location;
  if (err.details.retryAfter !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(err.details.retryAfter)));
  return { status: STATUS_OF_KIND[err.kind], message: err.message, headers };
}

/** The HTTP status an error answers with, or null when it is not a domain or HTTP error. */
export function statusOf(err: unknown): number | null {
  return errorReply(err)?.status ?? null;
}
