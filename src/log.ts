import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogFormat } from './config.js';
import { splitUrlSecrets } from './net/url-secrets.js';

export type { Logger };

/**
 * A process's logger. `json` (the default): one JSON object per line on stdout, for collectors
 * and `docker compose logs`. `pretty`: one readable line per event (time, level, process name and
 * pid, message, then the fields as JSON on the same line), coloured when the terminal supports it,
 * written synchronously so the lines before an exit are not lost. A destination stream gets JSON.
 *
 * Credentials that may appear in URLs (git remotes, fetched sources) are redacted by the callers
 * through `redactUrl`; the paths below catch headers and known fields, in both formats.
 */
export function createLogger(level: string, name: string, output: LogFormat | pino.DestinationStream = 'json'): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    redact: {
      paths: [
        'authorization',
        'req.headers.authorization',
        'req.headers.cookie',
        'password',
        'token',
        'secret',
        'apiToken',
        '*.password',
        '*.token',
        '*.secret',
        '*.apiToken',
      ],
      censor: '[redacted]',
    },
  };
  if (typeof output === 'object') return pino(options, output);
  if (output === 'pretty') return pino(options, prettyStream());
  return pino(options);
}

function prettyStream(): pino.DestinationStream {
  return pretty({
    sync: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'hostname',
    colorize: pretty.isColorSupported,
    // An error's stack follows its event's line, indented, rather than as a multi-line JSON object.
    errorLikeObjectKeys: [],
    customPrettifiers: { err: prettyError },
  });
}

function prettyError(value: unknown): string {
  if (!value || typeof value !== 'object') return String(value);
  const e = value as { type?: string; message?: string; stack?: string; code?: unknown };
  const text = e.stack ?? `${e.type ?? 'Error'}: ${e.message ?? ''}`;
  return e.code === undefined ? text : `${text}\n(code ${String(e.code)})`;
}

/**
 * A URL-like string without its credentials, for logs and responses: user info removed and the
 * values of credential query parameters (`token`, `api_key`, `sig`, ...) replaced (src/net/url-secrets.ts).
 */
export function redactUrl(url: string): string {
  return splitUrlSecrets(url).display;
}
