// Sending the platform's e-mails (issue 28 item 5). A request never waits for SMTP: services call
// `sendAfterCommit` once their change is committed; the message goes out in the background and a
// failure is logged (without credentials), never thrown at the caller.
import type { AppContext } from '../context.js';
import { createMailer, type MailMessage, type Mailer } from '../mail/transport.js';
import { reviewRequestMail } from '../mail/templates.js';

const mailers = new WeakMap<AppContext, Mailer>();

function mailerOf(app: AppContext): Mailer {
  let m = mailers.get(app);
  if (!m) {
    m = createMailer({ smtpUrl: app.config.mail.smtpUrl, from: app.config.mail.from }, app.log);
    mailers.set(app, m);
  }
  return m;
}

/** Messages still being sent (tests and shutdown may wait for them). */
const pending = new Set<Promise<void>>();

/** Send in the background; resolves at once. */
export function sendAfterCommit(app: AppContext, message: MailMessage): void {
  const p = mailerOf(app)
    .send(message)
    .catch((err: Error) => app.log.error({ err: err.message, to: message.to, subject: message.subject }, 'e-mail not sent'))
    .finally(() => pending.delete(p));
  pending.add(p);
}

/** Wait until every message handed to `sendAfterCommit` so far was sent or failed. */
export async function mailSettled(): Promise<void> {
  await Promise.all([...pending]);
}

/**
 * Tell a requested reviewer by e-mail (for the reviews service: call it after the request is
 * committed). `url`: where the change request is read.
 */
export function sendReviewRequest(
  app: AppContext,
  r: { to: string; requestedBy: string; space: string; changeRequest: string; url: string },
): void {
  sendAfterCommit(app, reviewRequestMail(r));
}
