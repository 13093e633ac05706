import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { createLogger } from '../../../src/log.js';
import { createMailer } from '../../../src/mail/transport.js';
import { inviteMail, reviewRequestMail, signInMail } from '../../../src/mail/templates.js';
import { freePort } from '../../helpers/http.js';
import { useTestApp } from '../../helpers/app.js';
import { mailSettled, sendAfterCommit, sendReviewRequest } from '../../../src/services/mail.js';
import { auditJobEnd } from '../../../src/services/audit.js';
import { insertOperation } from '../../../src/db/repos/operations.js';

/** An SMTP server that wants a login (user/secret) and keeps what it receives. */
let server: SMTPServer;
let port: number;
const received: ParsedMail[] = [];
beforeAll(async () => {
  server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === 'mailer' && auth.password === 's3cret-pass') cb(null, { user: 'mailer' });
      else cb(new Error('bad credentials'));
    },
    onData(stream, _session, cb) {
      simpleParser(stream).then((m) => {
        received.push(m);
        cb();
      }, cb);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function capture() {
  const lines: string[] = [];
  return { lines, log: createLogger('debug', 'mail-test', { write: (l: string) => void lines.push(l) }) };
}

describe('the mail transport', () => {
  it('sends plain-text and HTML bodies through SMTP with the credentials of SMTP_URL, never logging them', async () => {
    const { lines, log } = capture();
    const mailer = createMailer({ smtpUrl: `smtp://mailer:s3cret-pass@127.0.0.1:${port}`, from: 'Docs <docs@example.test>' }, log);
    expect(mailer.kind).toBe('smtp');
    await mailer.send(
      reviewRequestMail({
        to: 'reviewer@example.com',
        requestedBy: 'Ada <script>',
        space: 'Handbook',
        changeRequest: 'Fix typos',
        url: 'http://docs.test/cr/1',
      }),
    );
    mailer.close();
    const m = received.find((r) => r.subject === 'Review requested: Fix typos')!;
    expect(m).toBeTruthy();
    expect(m.text).toContain('Ada <script> asked you to review');
    expect(m.text).toContain('http://docs.test/cr/1');
    expect(String(m.html)).toContain('Ada &lt;script&gt;');
    expect(String(m.html)).toContain('href="http://docs.test/cr/1"');
    expect(m.from?.text).toContain('docs@example.test');
    expect(lines.join('\n')).toContain('e-mail sent');
    expect(lines.join('\n')).not.toContain('s3cret-pass');
  });

  it('wrong credentials reject the send; the error names no secret', async () => {
    const { log } = capture();
    const mailer = createMailer({ smtpUrl: `smtp://mailer:wrong-pass@127.0.0.1:${port}`, from: 'docs@example.test' }, log);
    const err = await mailer.send(signInMail({ to: 'x@example.com', url: 'http://docs.test/s', expiresAt: new Date() })).catch((e) => e);
    mailer.close();
    expect(err).toBeInstanceOf(Error);
    expect(String(err.message)).not.toContain('wrong-pass');
  });

  it('without SMTP_URL, writes the message to the log', async () => {
    const { lines, log } = capture();
    const mailer = createMailer({ smtpUrl: null, from: 'docs@example.test' }, log);
    expect(mailer.kind).toBe('log');
    await mailer.send(
      inviteMail({
        to: 'newcomer@example.com',
        organization: 'Acme',
        invitedBy: 'Ada',
        role: 'edit',
        url: 'http://docs.test/invites/x',
        expiresAt: new Date(),
      }),
    );
    const line = lines.find((l) => l.includes('newcomer@example.com'))!;
    expect(line).toContain('http://docs.test/invites/x');
    expect(line).toContain('no SMTP_URL');
  });
});

describe('sending from the platform', () => {
  const unreachable = { port: 0 };
  beforeAll(async () => {
    unreachable.port = await freePort();
  });
  const { t } = useTestApp(() => ({ env: { SMTP_URL: `smtp://127.0.0.1:${unreachable.port}` }, captureLogs: true }));

  it('never throws at the caller: an SMTP failure after the commit is logged', async () => {
    sendReviewRequest(t.app, { to: 'r@example.com', requestedBy: 'Ada', space: 'S', changeRequest: 'CR', url: 'http://x.test' });
    sendAfterCommit(t.app, signInMail({ to: 's@example.com', url: 'http://x.test/s', expiresAt: new Date() }));
    await mailSettled();
    expect(t.logs.filter((l) => l.includes('e-mail not sent')).length).toBe(2);
  });

  it('the runner hook records the end of a job that changes things, as the user who asked for it', async () => {
    const org = await t.seedOrg();
    const op = await insertOperation(t.app.db, {
      id: 'opAudited0000000001',
      organizationId: org.orgId,
      kind: 'git.sync',
      queue: 'git',
      targetType: 'space',
      targetId: 'space1',
      payload: {},
      createdBy: org.adminId,
    });
    await auditJobEnd(t.app, 'git.sync', op.id, 'failed');
    await auditJobEnd(t.app, 'search.index', op.id, 'succeeded'); // not audited
    const list = await t.api('GET', `/v1/orgs/${org.orgId}/audit-events`, { token: org.adminToken });
    expect(list.body.items.map((e: any) => [e.action, e.source, e.actor.id, e.target.id])).toEqual([
      ['jobs.git.sync.failed', 'workflow', org.adminId, 'space1'],
    ]);
  });
});
