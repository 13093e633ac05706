import { describe, expect, it } from 'vitest';
import { GitBookAPI } from '@gitbook/api';
import { useTestApp } from '../../helpers/app.js';
import { assertMatchesSpec } from '../../helpers/spec.js';

// Reviews of change requests through the official client (issue 28, item 1): a space whose merge
// rules require an approval, requested reviewers, reviews that go outdated on the next edit, the
// organization's change request list, contributors, and who may do what.
const { t } = useTestApp();

const client = (token: string): any => new GitBookAPI({ endpoint: t.baseUrl, authToken: token });

async function addPage(token: string, spaceId: string, crId: string, title: string, markdown: string) {
  const r = await t.api('POST', `/v1/spaces/${spaceId}/change-requests/${crId}/content`, {
    token,
    body: { changes: [{ operation: 'insert_page', title, document: { markdown } }] },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

async function setup() {
  const org = await t.seedOrg('Review org');
  const reviewer = await t.seedUser(org.orgId, 'review', 'Rita Reviewer');
  const reader = await t.seedUser(org.orgId, 'read', 'Rob Reader');
  const outsider = await t.seedUser(undefined, undefined, 'Oscar Outsider');
  const admin = client(org.adminToken);
  const space = (await admin.orgs.createSpace(org.orgId, { title: 'Reviewed docs' })).data.id as string;
  return { org, reviewer, reader, outsider, admin, space };
}

describe('change request reviews', () => {
  it('an approval required before merge: 409 until one current approval exists; an edit outdates it', async () => {
    const { org, reviewer, admin, space } = await setup();
    const asAdmin = { token: org.adminToken };

    // The space's merge rules, in the description's shape.
    const patched = await admin.spaces.updateSpaceById(space, {
      mergeRules: { type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }] },
    });
    assertMatchesSpec('PATCH', '/spaces/{spaceId}', 200, patched.data);
    expect(patched.data.mergeRules).toEqual({ type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }] });
    expect((await admin.spaces.getSpaceById(space)).data.mergeRules.type).toBe('rules');
    // Lists show the same rules as the space itself.
    const inList = (await admin.orgs.listSpacesInOrganizationById(org.orgId)).data.items.find((s: { id: string }) => s.id === space);
    expect(inList?.mergeRules).toEqual({ type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }] });
    // A rule this platform cannot check is refused, not silently ignored.
    const bad = await t.api('PATCH', `/v1/spaces/${space}`, {
      ...asAdmin,
      body: { mergeRules: { type: 'rules', rules: [{ rule: 'require_agent_review' }] } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('require_agent_review');
    const noUsers = await t.api('PATCH', `/v1/spaces/${space}`, {
      ...asAdmin,
      body: { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [] }] } },
    });
    expect(noUsers.status).toBe(400);
    // Only admins set merge rules.
    expect((await t.api('PATCH', `/v1/spaces/${space}`, { token: reviewer.token, body: { mergeRules: { type: 'none' } } })).status).toBe(
      403,
    );

    const cr = (await admin.spaces.createChangeRequest(space, { subject: 'Add a guide' })).data;
    await addPage(org.adminToken, space, cr.id, 'Guide', 'First draft.');
    await admin.spaces.updateChangeRequestById(space, cr.id, { status: 'open' });

    const refused = await t.api('POST', `/v1/spaces/${space}/change-requests/${cr.id}/merge`, asAdmin);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain('at least one approval');

    // The author's own approval does not count.
    const own = await admin.spaces.submitChangeRequestReview(space, cr.id, { status: 'approved' });
    expect(own.status).toBe(201);
    expect((await t.api('POST', `/v1/spaces/${space}/change-requests/${cr.id}/merge`, asAdmin)).status).toBe(409);

    // Ask Rita; she sees it in her organization list filter.
    const requested = await admin.spaces.requestReviewersForChangeRequest(space, cr.id, { users: [reviewer.userId] });
    assertMatchesSpec('POST', '/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', 200, requested.data);
    expect(requested.data.users.map((u: any) => [u.kind, u.user.id, u.requestedBy.id])).toEqual([['user', reviewer.userId, org.adminId]]);
    const asRita = client(reviewer.token);
    const listed = await asRita.orgs.listChangeRequestsForOrganization(org.orgId, { requestedReviewer: reviewer.userId });
    assertMatchesSpec('GET', '/orgs/{organizationId}/change-requests', 200, listed.data);
    expect(listed.data.items.map((x: any) => x.id)).toEqual([cr.id]);
    const reqList = await asRita.spaces.getRequestedReviewersByChangeRequestId(space, cr.id);
    assertMatchesSpec('GET', '/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers', 200, reqList.data);
    expect(reqList.data.items.map((x: any) => x.user.id)).toEqual([reviewer.userId]);

    // Rita approves: the review belongs to the change request's current revision; merge is still
    // refused after a new edit (the approval is outdated), and allowed after a new approval.
    const before = (await admin.spaces.getChangeRequestById(space, cr.id)).data;
    const approved = await asRita.spaces.submitChangeRequestReview(space, cr.id, { status: 'approved' });
    assertMatchesSpec('POST', '/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', 201, approved.data);
    expect(approved.data).toMatchObject({ status: 'approved', outdated: false, revision: before.revision });
    expect(approved.data.reviewer.id).toBe(reviewer.userId);
    expect(approved.data.requestedBy.id).toBe(org.adminId);

    await addPage(org.adminToken, space, cr.id, 'Second', 'One more page.');
    const stale = await asRita.spaces.getChangeRequestReviewById(space, cr.id, approved.data.id);
    assertMatchesSpec('GET', '/spaces/{spaceId}/change-requests/{changeRequestId}/reviews/{reviewId}', 200, stale.data);
    expect(stale.data.outdated).toBe(true);
    const blocked = await t.api('POST', `/v1/spaces/${space}/change-requests/${cr.id}/merge`, asAdmin);
    expect(blocked.status).toBe(409);

    const again = await asRita.spaces.submitChangeRequestReview(space, cr.id, {
      status: 'approved',
      comment: {
        object: 'document',
        data: {},
        nodes: [
          {
            object: 'block',
            type: 'paragraph',
            data: {},
            nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Looks good', marks: [] }] }],
          },
        ],
      },
    });
    expect(again.status).toBe(201);
    expect(again.data.outdated).toBe(false);
    expect(again.data.comment?.id).toBeTruthy();

    const all = await asRita.spaces.getReviewsByChangeRequestId(space, cr.id);
    assertMatchesSpec('GET', '/spaces/{spaceId}/change-requests/{changeRequestId}/reviews', 200, all.data);
    expect(all.data.items.map((r: any) => [r.reviewer.id, r.outdated])).toEqual([
      [reviewer.userId, false],
      [reviewer.userId, true],
      [org.adminId, true],
    ]);
    const current = await asRita.spaces.getReviewsByChangeRequestId(space, cr.id, { outdated: false });
    expect(current.data.items.map((r: any) => r.id)).toEqual([again.data.id]);
    const paged = await asRita.spaces.getReviewsByChangeRequestId(space, cr.id, { limit: 2 });
    expect(paged.data.items).toHaveLength(2);
    const rest = await asRita.spaces.getReviewsByChangeRequestId(space, cr.id, { limit: 2, page: paged.data.next.page });
    expect(rest.data.items.map((r: any) => r.reviewer.id)).toEqual([org.adminId]);

    // Contributors: the author edited, the reviewer commented (her review's comment).
    const contributors = await admin.spaces.getContributorsByChangeRequestId(space, cr.id);
    assertMatchesSpec('GET', '/spaces/{spaceId}/change-requests/{changeRequestId}/contributors', 200, contributors.data);
    const seen = contributors.data.items.map((c: any) => [c.user.id, c.actionType, c.count]).sort();
    expect(seen).toEqual(
      [
        [org.adminId, 'edit', 2],
        [reviewer.userId, 'comment', 1],
      ].sort(),
    );

    const byContributor = await admin.orgs.listChangeRequestsForOrganization(org.orgId, { contributor: reviewer.userId });
    expect(byContributor.data.items.map((x: any) => x.id)).toEqual([cr.id]);
    expect((await admin.orgs.listChangeRequestsForOrganization(org.orgId, { creator: reviewer.userId })).data.items).toEqual([]);
    const byCreator = await admin.orgs.listChangeRequestsForOrganization(org.orgId, { creator: org.adminId, orderBy: 'createdAt' });
    expect(byCreator.data.items.map((x: any) => x.id)).toEqual([cr.id]);

    const merged = await admin.spaces.mergeChangeRequest(space, cr.id);
    expect(merged.status).toBe(200);
    expect((await admin.spaces.getChangeRequestById(space, cr.id)).data.status).toBe('merged');
    // A merged change request takes no more reviews.
    expect(
      (await t.api('POST', `/v1/spaces/${space}/change-requests/${cr.id}/reviews`, { token: reviewer.token, body: { status: 'approved' } }))
        .status,
    ).toBe(409);
    // Merged ones are listed when asked for.
    const mergedList = await admin.orgs.listChangeRequestsForOrganization(org.orgId, { status: ['merged'] });
    expect(mergedList.data.items.map((x: any) => x.id)).toEqual([cr.id]);
    expect((await admin.orgs.listChangeRequestsForOrganization(org.orgId)).data.items).toEqual([]);
  });

  it('changes requested block require_all_reviews_approved; bypass users and specific reviewers', async () => {
    const { org, reviewer, admin, space } = await setup();
    const other = await t.seedUser(org.orgId, 'review', 'Olga Other');
    await admin.spaces.updateSpaceById(space, {
      mergeRules: {
        type: 'rules',
        rules: [{ rule: 'require_all_reviews_approved' }, { rule: 'require_specific_reviewers', users: [other.userId] }],
      },
    });
    const cr = (await admin.spaces.createChangeRequest(space, { subject: 'Rules' })).data;
    await addPage(org.adminToken, space, cr.id, 'Page', 'Body.');
    await client(reviewer.token).spaces.submitChangeRequestReview(space, cr.id, { status: 'changes-requested' });
    await client(other.token).spaces.submitChangeRequestReview(space, cr.id, { status: 'approved' });
    const refused = await t.api('POST', `/v1/spaces/${space}/change-requests/${cr.id}/merge`, { token: org.adminToken });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain('requests changes');
    // Asking Olga again supersedes her approval (a newer review request outdates it).
    await admin.spaces.requestReviewersForChangeRequest(space, cr.id, { users: [other.userId] });
    const olgas = await admin.spaces.getReviewsByChangeRequestId(space, cr.id);
    expect(olgas.data.items.find((r: any) => r.reviewer.id === other.userId).outdated).toBe(true);
    await client(reviewer.token).spaces.submitChangeRequestReview(space, cr.id, { status: 'approved' });
    const missing = await t.api('POST', `/v1/spaces/${space}/change-requests/${cr.id}/merge`, { token: org.adminToken });
    expect(missing.status).toBe(409);
    expect(missing.body.error.message).toContain(other.userId);
    await client(other.token).spaces.submitChangeRequestReview(space, cr.id, { status: 'approved' });
    expect((await t.api('POST', `/v1/spaces/${space}/change-requests/${cr.id}/merge`, { token: org.adminToken })).status).toBe(200);

    // allow_bypass: the listed user merges without any review.
    await admin.spaces.updateSpaceById(space, {
      mergeRules: { type: 'rules', rules: [{ rule: 'require_at_least_one_review' }, { rule: 'allow_bypass', users: [org.adminId] }] },
    });
    const cr2 = (await admin.spaces.createChangeRequest(space, { subject: 'Bypass' })).data;
    await addPage(org.adminToken, space, cr2.id, 'Other', 'Body.');
    expect((await t.api('POST', `/v1/spaces/${space}/change-requests/${cr2.id}/merge`, { token: reviewer.token })).status).toBe(409);
    expect((await t.api('POST', `/v1/spaces/${space}/change-requests/${cr2.id}/merge`, { token: org.adminToken })).status).toBe(200);

    // require_change_request_description: no description, or one of blank paragraphs, is refused.
    await admin.spaces.updateSpaceById(space, { mergeRules: { type: 'rules', rules: [{ rule: 'require_change_request_description' }] } });
    const cr4 = (await admin.spaces.createChangeRequest(space, { subject: 'Described' })).data;
    await addPage(org.adminToken, space, cr4.id, 'Fourth', 'Body.');
    const paragraph = (text: string) => ({
      object: 'block',
      type: 'paragraph',
      nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }],
    });
    const undescribed = await t.api('POST', `/v1/spaces/${space}/change-requests/${cr4.id}/merge`, { token: org.adminToken });
    expect(undescribed.status).toBe(409);
    expect(undescribed.body.error.message).toContain('a description');
    await admin.spaces.updateChangeRequestById(space, cr4.id, { description: { object: 'document', data: {}, nodes: [paragraph('  ')] } });
    expect((await t.api('POST', `/v1/spaces/${space}/change-requests/${cr4.id}/merge`, { token: org.adminToken })).status).toBe(409);
    await admin.spaces.updateChangeRequestById(space, cr4.id, {
      description: { object: 'document', data: {}, nodes: [paragraph('Why: the quotas changed.')] },
    });
    expect((await t.api('POST', `/v1/spaces/${space}/change-requests/${cr4.id}/merge`, { token: org.adminToken })).status).toBe(200);

    // Back to none: merges need nothing.
    await admin.spaces.updateSpaceById(space, { mergeRules: { type: 'none' } });
    const cr3 = (await admin.spaces.createChangeRequest(space, { subject: 'Free' })).data;
    await addPage(org.adminToken, space, cr3.id, 'Third', 'Body.');
    expect((await t.api('POST', `/v1/spaces/${space}/change-requests/${cr3.id}/merge`, { token: org.adminToken })).status).toBe(200);
  });

  it('who may review and request reviews; non-members get 404; removing a request answers 205 then 204', async () => {
    const { org, reviewer, reader, outsider, admin, space } = await setup();
    const cr = (await admin.spaces.createChangeRequest(space, { subject: 'Permissions' })).data;
    const base = `/v1/spaces/${space}/change-requests/${cr.id}`;

    // A reader may not review unless asked; a non-member does not see the change request at all.
    expect((await t.api('POST', `${base}/reviews`, { token: reader.token, body: { status: 'approved' } })).status).toBe(403);
    expect((await t.api('POST', `${base}/reviews`, { token: outsider.token, body: { status: 'approved' } })).status).toBe(404);
    expect((await t.api('GET', `${base}/reviews`, { token: outsider.token })).status).toBe(404);
    expect((await t.api('GET', `${base}/requested-reviewers`, { token: outsider.token })).status).toBe(404);
    expect((await t.api('GET', `/v1/orgs/${org.orgId}/change-requests`, { token: outsider.token })).status).toBe(403);
    // A reader may not ask for reviews, nor be asked (they could not review).
    expect((await t.api('POST', `${base}/requested-reviewers`, { token: reader.token, body: { users: [reviewer.userId] } })).status).toBe(
      403,
    );
    const notReviewer = await t.api('POST', `${base}/requested-reviewers`, { token: org.adminToken, body: { users: [reader.userId] } });
    expect(notReviewer.status).toBe(400);
    expect(notReviewer.body.error.message).toContain(reader.userId);
    expect((await t.api('POST', `${base}/reviews`, { token: reviewer.token, body: { status: 'nope' } })).status).toBe(400);
    expect((await t.api('GET', `${base}/reviews/unknown-review`, { token: reviewer.token })).status).toBe(404);

    // Asking also updates the subject when given.
    const asked = await admin.spaces.requestReviewersForChangeRequest(space, cr.id, { users: [reviewer.userId], subject: 'Please review' });
    expect(asked.data.users).toHaveLength(1);
    expect((await admin.spaces.getChangeRequestById(space, cr.id)).data.subject).toBe('Please review');

    const removed = await admin.spaces.removeRequestedReviewerFromChangeRequest(space, cr.id, reviewer.userId);
    expect(removed.status).toBe(205);
    expect((await t.api('DELETE', `${base}/requested-reviewers/${reviewer.userId}`, { token: org.adminToken })).status).toBe(204);
    expect((await admin.spaces.getRequestedReviewersByChangeRequestId(space, cr.id)).data.items).toEqual([]);
    // The reader's org list shows the change requests of the spaces they can read only.
    const drafts = await client(reader.token).orgs.listChangeRequestsForOrganization(org.orgId, { status: ['draft', 'open'] });
    expect(drafts.data.items.map((x: any) => x.id)).toEqual([cr.id]);
    const hidden = (await admin.orgs.createSpace(org.orgId, { title: 'Admins only' })).data.id;
    await admin.spaces.updateSpaceById(hidden, { defaultLevel: null });
    const hiddenCr = (await admin.spaces.createChangeRequest(hidden, { subject: 'Secret' })).data;
    const adminList = await admin.orgs.listChangeRequestsForOrganization(org.orgId, { status: ['draft'] });
    expect(adminList.data.items.map((x: any) => x.id).sort()).toEqual([cr.id, hiddenCr.id].sort());
    const readerList = await client(reader.token).orgs.listChangeRequestsForOrganization(org.orgId, { status: ['draft'] });
    expect(readerList.data.items.map((x: any) => x.id)).toEqual([cr.id]);
    expect(
      (await client(reader.token).orgs.listChangeRequestsForOrganization(org.orgId, { status: ['draft'], space: hidden })).data.items,
    ).toEqual([]);
  });
});
