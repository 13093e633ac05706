import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/app.js';
import { startTestSmtp, type TestSmtp } from '../../helpers/smtp.js';
import { mailSettled } from '../../../src/services/mail.js';

let smtp: TestSmtp;
beforeAll(async () => {
  smtp = await startTestSmtp();
});
afterAll(() => smtp?.close());
const { t } = useTestApp(() => ({ env: { SMTP_URL: smtp.url }, captureLogs: true }));

const form = { rawBody: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } };

describe('sign-in links by e-mail', () => {
  it('a known address gets a single-use link that shows a new API token; an unknown one gets the same answer and no mail', async () => {
    const org = await t.seedOrg();
    const member = await t.seedUser(org.orgId, 'read', 'Mia Member');
    const asked = await t.api('POST', '/sign-in/email', { body: { email: member.email } });
    expect(asked.status).toBe(202);
    const unknown = await t.api('POST', '/sign-in/email', { body: { email: 'nobody@example.com' } });
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual(asked.body);

    const mail = await smtp.waitFor(member.email);
    expect(mail.subject).toBe('Your sign-in link');
    const url = /(https?:\/\/\S+\/sign-in\/sil_[A-Za-z0-9_-]+)/.exec(mail.text ?? '')![1];
    expect(String(mail.html)).toContain(url);
    const path = new URL(url).pathname;
    expect((await t.api('GET', path)).status).toBe(200);
    const done = await t.api('POST', path, form);
    expect(done.status).toBe(200);
    const token = /<code id="token">([^<]+)</.exec(done.text)![1];
    expect((await t.api('GET', '/v1/user', { token })).body.email).toBe(member.email);
    expect((await t.api('POST', path, form)).status).toBe(410);

    await mailSettled();
    expect(smtp.messages.some((m) => m.text?.includes('nobody@example.com') || String(m.to?.valueOf()).includes('nobody'))).toBe(false);
    // The token of the path never reaches the log.
    expect(t.logs.join('\n')).not.toContain(path.split('/').pop()!);
    // Recorded: the token issued.
    const events = await t.api('GET', `/v1/orgs/${org.orgId}/audit-events?action=tokens.create`, { token: org.adminToken });
    expect(events.body.items.map((e: any) => e.actor.id)).toEqual([member.userId]);
  });

  it('at most five links per address per window', async () => {
    const user = await t.seedUser();
    for (let i = 0; i < 7; i++) expect((await t.api('POST', '/sign-in/email', { body: { email: user.email } })).status).toBe(202);
    await mailSettled();
    const { rows } = await t.app.db.query('SELECT count(*)::int AS n FROM sign_in_links WHERE user_id = $1', [user.userId]);
    expect(rows[0].n).toBe(5);
  });
});
