import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

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

function key(secret: string): Buffer {
  return createHash('sha256').update(`git-credentials\n${secret}`).digest();
}

/** AES-256-GCM with a key derived from the server secret: what the operation row stores. */
export function sealCredentials(c: GitCredentials, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key(secret), iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(c), 'utf8'), cipher.final()]);
  return `v1.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${data.toString('base64url')}`;
}

export function openCredentials(sealed: string, secret: string): GitCredentials {
  const [v, iv, tag, data] = sealed.split('.');
  if (v !== 'v1' || !iv || !tag || !data) throw new Error('Unreadable stored credentials');
  const decipher = createDecipheriv('aes-256-gcm', key(secret), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  const text = Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  return JSON.parse(text);
}
