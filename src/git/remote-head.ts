// What a remote branch points at, asked without fetching (`git ls-remote`): Git Sync reads it at
// the start of every run to tell whether the repository moved.
import git from 'isomorphic-git';
import type { HttpClient } from 'isomorphic-git';
import type { GitCredentials } from './credentials.js';
import { GitSyncError } from './repo.js';

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the remote';
  }
}

/** The commit `ref` points at on the remote, or null when the branch does not exist (an empty repository). */
export async function remoteBranchHead(
  remote: { url: string; credentials?: GitCredentials; http: HttpClient },
  ref: string,
): Promise<string | null> {
  const c = remote.credentials;
  try {
    const info = await git.getRemoteInfo2({
      http: remote.http,
      url: remote.url,
      onAuth: c ? () => ({ username: c.username, password: c.password }) : undefined,
      onAuthFailure: () => ({ cancel: true }),
      protocolVersion: 1,
    });
    if (info.protocolVersion !== 1) return null;
    return (info.refs ?? []).find((r) => r.ref === ref)?.oid ?? null;
  } catch (err) {
    const e = err as { code?: string; message?: string; data?: { statusCode?: number } };
    const host = hostOf(remote.url);
    if (e.code === 'HttpError' || e.code === 'UserCanceledError') {
      const status = e.data?.statusCode;
      if (status === 401 || status === 403 || e.code === 'UserCanceledError')
        throw new GitSyncError(`Authentication to ${host} failed: check the credentials`, 'upstream');
      if (status === 404) throw new GitSyncError(`Repository not found at ${host}`, 'upstream');
      throw new GitSyncError(`The git server at ${host} answered HTTP ${status ?? '?'}`, 'upstream');
    }
    if (e.code === 'SmartHttpError' || e.code === 'EmptyServerResponseError')
      throw new GitSyncError(`${host} is not a git smart-HTTP server`, 'upstream');
    throw new GitSyncError(`Could not reach the repository at ${host}: ${String(e.message ?? err).split('\n')[0]}`, 'upstream');
  }
}
