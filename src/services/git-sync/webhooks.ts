// Push events for Git Sync (POST /v1/git-sync/hooks/{hookId}): the signature is the auth, checked
// over the raw body with the sync's secret. GitHub (X-Hub-Signature-256: sha256=<hex HMAC-SHA256>),
// Gitea and Forgejo (X-Gitea-Signature / X-Forgejo-Signature: <hex HMAC-SHA256>), GitLab
// (X-Gitlab-Token: <secret>), or `Authorization: Bearer <secret>` with `{ref, after}`.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { invalid, notFound, unauthenticated } from '../../core/errors.js';
import { getGitSyncByHook } from '../../db/repos/git-syncs.js';
import { webhookSecret } from './settings.js';
import { requestRun } from './runs.js';
import { operationLocation } from '../../presenters/operations.js';

type Headers = Record<string, string | string[] | undefined>;

export interface HookReply {
  status: 200 | 202;
  body: { object: 'git-sync-delivery'; event: string; accepted: boolean; reason?: string; operation?: string };
  /** The run that takes the push (its operation's URL). */
  location?: string;
}

const header = (h: Headers, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Equal strings in constant time (hashed first, so lengths do not show). */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

function validHmac(raw: Buffer, secret: string, hex: string): boolean {
  const given = Buffer.from(hex.trim().toLowerCase(), 'hex');
  const expected = createHmac('sha256', secret).update(raw).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Which forge sent it and whether its signature holds; the event name (push, ping...). */
function authenticate(h: Headers, raw: Buffer, secret: string): { forge: string; event: string } {
  const githubSig = header(h, 'x-hub-signature-256');
  const giteaSig = header(h, 'x-gitea-signature') ?? header(h, 'x-forgejo-signature');
  const gitlabToken = header(h, 'x-gitlab-token');
  const auth = header(h, 'authorization');
  const event = (
    header(h, 'x-github-event') ??
    header(h, 'x-gitea-event') ??
    header(h, 'x-forgejo-event') ??
    header(h, 'x-gogs-event') ??
    header(h, 'x-gitlab-event') ??
    'push'
  ).toLowerCase();
  const refuse = () => unauthenticated('Invalid or missing webhook signature');
  if (githubSig !== undefined) {
    if (!githubSig.startsWith('sha256=') || !validHmac(raw, secret, githubSig.slice(7))) throw refuse();
    return { forge: header(h, 'x-gitea-event') ? 'gitea' : 'github', event };
  }
  if (giteaSig !== undefined) {
    if (!validHmac(raw, secret, giteaSig)) throw refuse();
    return { forge: 'gitea', event };
  }
  if (gitlabToken !== undefined) {
    if (!sameSecret(gitlabToken, secret)) throw refuse();
    return { forge: 'gitlab', event };
  }
  const bearer = auth && /^Bearer\s+(.+)$/i.exec(auth.trim())?.[1];
  if (bearer) {
    if (!sameSecret(bearer, secret)) throw refuse();
    return { forge: 'bearer', event };
  }
  throw refuse();
}

/** The JSON payload (GitHub may also send it form-encoded, as `payload=`). */
function parsePayload(raw: Buffer, contentType: string): Record<string, unknown> {
  let text = raw.toString('utf8');
  if (contentType.toLowerCase().startsWith('application/x-www-form-urlencoded')) text = new URLSearchParams(text).get('payload') ?? '';
  try {
    const v = JSON.parse(text);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw invalid('The webhook body is not a JSON object');
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** The pushed branch and commit, in each forge's real fields. */
function pushOf(body: Record<string, unknown>): { ref?: string; after?: string } {
  const head = body.head_commit as { id?: unknown } | null | undefined;
  return {
    ref: str(body.ref),
    after: str(body.checkout_sha) ?? str(body.after) ?? str(head?.id),
  };
}

/** Events that only check the hook: answered 200, nothing runs. */
const PINGS = new Set(['ping', 'system hook']);

/**
 * Receive one delivery. 404 for an unknown hook, 401 for a bad or missing signature (nothing runs),
 * 200 for a ping or an event other than a push, 202 for a push: a run is requested when the pushed
 * branch is the synced one (coalescing with a queued run), nothing otherwise.
 */
export async function receiveHook(app: AppContext, hookId: string, h: Headers, raw: Buffer): Promise<HookReply> {
  const sync = await getGitSyncByHook(app.db, hookId);
  if (!sync) throw notFound('Unknown webhook');
  const { event } = authenticate(h, raw, webhookSecret(app, sync));
  if (PINGS.has(event)) return { status: 200, body: { object: 'git-sync-delivery', event: 'ping', accepted: false, reason: 'ping' } };
  if (event !== 'push' && event !== 'push hook') {
    return { status: 200, body: { object: 'git-sync-delivery', event, accepted: false, reason: 'not a push event' } };
  }
  const push = pushOf(parsePayload(raw, header(h, 'content-type') ?? 'application/json'));
  if (!push.ref) throw invalid('The push event has no "ref"');
  if (push.ref !== sync.ref) {
    return {
      status: 202,
      body: { object: 'git-sync-delivery', event: 'push', accepted: false, reason: `not the synced branch (${sync.ref})` },
    };
  }
  const wanted = push.after && /^[0-9a-f]{40,64}$/i.test(push.after) && !/^0+$/.test(push.after) ? push.after.toLowerCase() : undefined;
  const operation = await requestRun(app, sync.id, { wantedHead: wanted });
  return {
    status: 202,
    body: { object: 'git-sync-delivery', event: 'push', accepted: true, ...(operation ? { operation } : {}) },
    ...(operation ? { location: operationLocation(app, operation) } : {}),
  };
}
