import { openText, sealText } from '../util/seal.js';

export interface GitCredentials {
  username: string;
  password: string;
}

/** Split basic-auth credentials out of a remote URL: the clean URL may be stored and shown. */
export function splitCredentials(raw: string): { url: string; credentials?: GitCredentials } {
  const u = new URL(raw);
  if (!u.username && !u.password) return { url: u.toString() };
  const credentials = { username: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
  u.username = '';
  u.password = '';
  return { url: u.toString(), credentials };
}

/** What the operation row stores (see src/util/seal.ts); the format predates it and is unchanged. */
export function sealCredentials(c: GitCredentials, secret: string): string {
  return sealText(JSON.stringify(c), secret, 'git-credentials');
}

export function openCredentials(sealed: string, secret: string): GitCredentials {
  let text: string;
  try {
    text = openText(sealed, secret, 'git-credentials');
  } catch {
    throw new Error('Unreadable stored credentials');
  }
  return JSON.parse(text);
}
