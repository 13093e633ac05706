// Outgoing e-mail (issue 28 item 5): one transport configured by SMTP_URL (nodemailer), or, when
// none is configured, the log: each message is written there (recipient, subject, text body) so a
// newcomer's platform still shows its invite links. Credentials in SMTP_URL are never logged.
import nodemailer from 'nodemailer';
import type { Logger } from '../log.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  /** Send one message; rejects when the SMTP server refuses it or cannot be reached. */
  send(message: MailMessage): Promise<void>;
  /** `smtp` or `log`: where messages go. */
  readonly kind: 'smtp' | 'log';
  close(): void;
}

export interface MailSettings {
  smtpUrl: string | null;
  from: string;
  /** Bound on connecting and on each SMTP exchange, in ms. */
  timeoutMs?: number;
}

/** The SMTP URL without its password (for logs). */
export function redactSmtpUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'smtp://(unparsable)';
  }
}

export function createMailer(settings: MailSettings, log: Logger): Mailer {
  if (!settings.smtpUrl) {
    return {
      kind: 'log',
      async send(m) {
        log.info({ mail: { to: m.to, subject: m.subject, text: m.text } }, 'e-mail not sent (no SMTP_URL): written here instead');
      },
      close() {},
    };
  }
  const timeout = settings.timeoutMs ?? 15_000;
  const transport = nodemailer.createTransport(settings.smtpUrl, {
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  } as never);
  const where = redactSmtpUrl(settings.smtpUrl);
  return {
    kind: 'smtp',
    async send(m) {
      await transport.sendMail({ from: settings.from, to: m.to, subject: m.subject, text: m.text, html: m.html });
      log.info({ to: m.to, subject: m.subject, smtp: where }, 'e-mail sent');
    },
    close() {
      transport.close();
    },
  };
}
