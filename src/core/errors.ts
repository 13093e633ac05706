// Domain errors: what went wrong, in the domain's words. Engines and services throw them; only the
// HTTP edge (src/http/errors.ts) turns a kind into a status and the `{"error": {"code", "message"}}`
// body, and one shared mapping (jobs/failures.ts) turns them into final job failures.

/** What kind of failure; each kind has exactly one HTTP status at the edge. */
export type ErrorKind =
  /** The input is wrong: a field, a value, a reference to something of the wrong kind. */
  | 'invalid'
  /** No credentials, or credentials that are not valid. */
  | 'unauthenticated'
  /** The caller is known but may not do this. */
  | 'forbidden'
  /** The thing does not exist, or the caller may not know that it does. */
  | 'not-found'
  /** The current state forbids it (locked, merged, a concurrent change). */
  | 'conflict'
  /** A link or resource that existed and expired. */
  | 'gone'
  /** The input is over a limit of size or count. */
  | 'limit'
  /** A valid request the thing asked for cannot satisfy (a PDF that failed to render). */
  | 'unprocessable'
  /** A service outside the platform failed or answered something unusable. */
  | 'upstream'
  /** Not ready yet (an index still being built): the same request succeeds later (`retryAfter`). */
  | 'unavailable';

export interface ErrorDetails {
  /** Where the caller should look instead (an operation, a fresh resource). */
  location?: string;
  /** Seconds after which the request may succeed (kind `unavailable`). */
  retryAfter?: number;
}

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalid = (message: string) => new DomainError('invalid', message);
export const unauthenticated = (message = 'Authentication required: send "Authorization: Bearer <token>"') =>
  new DomainError('unauthenticated', message);
export const forbidden = (message = 'You do not have permission to perform this action') => new DomainError('forbidden', message);
export const notFound = (message = 'Not found') => new DomainError('not-found', message);
export const conflict = (message: string) => new DomainError('conflict', message);
export const gone = (message: string) => new DomainError('gone', message);
export const limitExceeded = (message: string) => new DomainError('limit', message);
export const unprocessable = (message: string, details: ErrorDetails = {}) => new DomainError('unprocessable', message, details);
export const upstream = (message: string) => new DomainError('upstream', message);
export const unavailable = (message: string, retryAfter: number) => new DomainError('unavailable', message, { retryAfter });

/** True for a domain error of one of the given kinds. */
export function isDomainError(err: unknown, ...kinds: ErrorKind[]): err is DomainError {
  return err instanceof DomainError && (kinds.length === 0 || kinds.includes(err.kind));
}
