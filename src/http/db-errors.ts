// PostgreSQL errors that are the request's fault or a race, not a server defect: each gets the
// status a client can act on instead of a 500. Everything else stays a 500 (and is logged).

interface DbErrorReply {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

const UNAVAILABLE: DbErrorReply = {
  status: 503,
  message: 'The service is briefly unavailable (its database cannot be reached); retry the request',
  headers: { 'retry-after': '2' },
};

/** Socket errors of a connection to the database (refused while it restarts, reset when it stops). */
const SOCKET_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/**
 * What pg says, without a SQLSTATE, of a connection that ended under a query, of a client whose
 * connection ended between two queries, and of a pool that could not connect in time.
 */
const LOST_CONNECTION =
  /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect|Query read timeout)/;

export function databaseErrorReply(err: unknown): DbErrorReply | null {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'string' && SOCKET_ERRORS.has(code)) return UNAVAILABLE;
  if (code === undefined && err instanceof Error && LOST_CONNECTION.test(err.message)) return UNAVAILABLE;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return null;
  // The database went away or is not there yet: connection exception (08), shutting down, starting
  // up or restarting (57P01-57P03), out of connections or memory (53). Another try will reach it.
  if (code.startsWith('08') || /^57P0[1-3]$/.test(code) || code.startsWith('53')) return UNAVAILABLE;
  const cls = code.slice(0, 2);
  // Data exception: a value of the wrong type reached a query (for example an edited page cursor).
  if (cls === '22') return { status: 400, message: 'Invalid request: a parameter has a value of the wrong type (check query.page)' };
  // Program limit exceeded (statement too complex, value too large): the input was too big.
  if (cls === '54') return { status: 400, message: 'Invalid request: the input is too large or too deeply nested' };
  // Integrity violation: a concurrent request changed what this one relied on (deleted a parent,
  // created the same name) between its checks and its write.
  if (cls === '23') return { status: 409, message: 'The request conflicts with a concurrent change; read the resource again and retry' };
  // Serialization failure, deadlock, lock not available, statement cancelled: retryable.
  if (cls === '40' || code === '55P03' || code === '57014') {
    return { status: 503, message: 'The database was busy with a conflicting change; retry the request', headers: { 'retry-after': '1' } };
  }
  return null;
}
