// What a space's git sync state says about its repository, as the API shows it (Space.gitSync and,
// with the latest operation added by the service, GET .../git/info).
import type { GitSyncStateRow } from '../db/repos/git-sync.js';

function repoName(url: string): string {
  try {
    const parts = new URL(url).pathname
      .replace(/\.git$/, '')
      .split('/')
      .filter(Boolean);
    return parts.slice(-2).join('/');
  } catch {
    return url;
  }
}

function providerOf(url: string, given?: string): string {
  if (given === 'github' || given === 'gitlab' || given === 'github-legacy') return given;
  return /gitlab/i.test(url) ? 'gitlab' : 'github';
}

/** The space's git sync without its latest operation; null when it never synced. */
export function gitSyncSummary(spaceId: string, s: GitSyncStateRow | null) {
  if (!s?.url) return null;
  return {
    repoName: repoName(s.url),
    installationId: `space-${spaceId}`,
    installationProvider: providerOf(s.url, s.provider ?? undefined),
    installationStatus: 'active',
    integration: providerOf(s.url, s.provider ?? undefined),
    url: s.tree_url ?? s.url,
    updatedAt: s.updated_at.toISOString(),
  };
}
