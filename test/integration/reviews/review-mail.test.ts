import { beforeAll, afterAll, expect, it } from 'vitest';
import { GitBookAPI } from '@gitbook/api';
import { useTestApp } from '../../helpers/app.js';
import { startTestSmtp, type TestSmtp } from '../../helpers/smtp.js';

// A requested reviewer is told by e-mail (issue 28 items 1 and 5), through a real SMTP server on loopback.
let smtp: TestSmtp;
beforeAll(async () => {
  smtp = await startTestSmtp();
});
afterAll(() => smtp?.close());
const { t } = useTestApp(() => ({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Docs <docs@example.test>' } }));

it('requesting a review e-mails the reviewer with the change request, the space and a link to it', async () => {
  const org = await t.seedOrg('Mail org');
  const reviewer = await t.seedUser(org.orgId, 'review', 'Rita Reviewer');
  const api: any = new GitBookAPI({ endpoint: t.baseUrl, authToken: org.adminToken });
  const space = (await api.orgs.createSpace(org.orgId, { title: 'Handbook' })).data.id;
  const cr = (await api.spaces.createChangeRequest(space, { subject: 'Holiday policy' })).data;
  await api.spaces.requestReviewersForChangeRequest(space, cr.id, { users: [reviewer.userId] });

  const mail = await smtp.waitFor(reviewer.email);
  expect(mail.subject).toContain('Holiday policy');
  expect(mail.text).toContain('Ada Admin');
  expect(mail.text).toContain('Handbook');
  expect(mail.text).toContain(cr.urls.app);
  expect(mail.html).toContain(cr.urls.app);
});
