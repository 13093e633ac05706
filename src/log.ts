import pino, { type Logger } from 'pino';

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

/** Remove user info (basic-auth credentials) from a URL-like string for logs and responses. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = '';
      u.password = '';
    }
    return u.toString();
  } catch {
    return url.replace(/\/\/[^/@\s]*@/, '//');
  }
}
