import { expect } from 'vitest';
import { GitBookAPI } from '@gitbook/api';
import type { TestApp } from '../../helpers/app.js';
import { assertMatchesSpec } from '../../helpers/spec.js';

export type Org = Awaited<ReturnType<TestApp['seedOrg']>>;

/**
 * The official client for `token`. Its typings import './client' without an extension, which
 * NodeNext resolution cannot follow, so its methods are untyped here; the runtime client is real.
 */
export function officialClient(t: TestApp, token: string): any {
  return new GitBookAPI({ endpoint: t.baseUrl, authToken: token });
}

/**
 * Call one operation of the official client and check the response against the 0.202.0
 * description (`path` is the description's path template). Returns the response data.
 */
export async function checked(
  method: string,
  path: string,
  call: Promise<{ status: number; data: unknown }>,
  status?: number,
): Promise<any> {
  const r = await call;
  if (status !== undefined) expect(r.status).toBe(status);
  if (r.status !== 204) assertMatchesSpec(method, path, r.status, r.data);
  return r.data;
}

/** The error a client call failed with (status in `code`). */
export async function failure(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'the call should have failed').not.toBeNull();
  return err as { code: number; message: string };
}

export async function newSpace(t: TestApp, o: Org, title: string): Promise<string> {
  const r = await t.api('POST', `/v1/orgs/${o.orgId}/spaces`, { token: o.adminToken, body: { title } });
  expect(r.status, r.text).toBe(201);
  return r.body.id;
}

export const SITE = '/orgs/{organizationId}/sites/{siteId}';
