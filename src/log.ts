import pino, { type Logger } from 'pino';
import { splitUrlSecrets } from './net/url-secrets.js';

export type { Logger };

// Structured JSON logs. Credentials that may appear in URLs (git remotes, fetched sources) are
// redacted by the callers through `redactUrl`; the paths below catch headers and known fields.
export function createLogger(level: string, name: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    redact: {
      paths: ['req.headers.authorization', '*.password', '*.token', 'authorization'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * A URL-like string without its credentials, for logs and responses: user info removed and the
 * values of credential query parameters (`token`, `api_key`, `sig`, ...) replaced (src/net/url-secrets.ts).
 */
export function redactUrl(url: string): string {
  return splitUrlSecrets(url).display;
}
