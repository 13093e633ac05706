import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

// Secrets the platform must keep but never show (git remote credentials, credentials of an
// OpenAPI source URL) are stored sealed: AES-256-GCM (node:crypto) with a random 96-bit IV and a
// key derived from the server secret and the purpose, so a value sealed for one purpose cannot
// be opened as another. Format: `v1.<iv>.<tag>.<ciphertext>`, each part base64url.

function key(secret: string, purpose: string): Buffer {
  return createHash('sha256').update(`${purpose}\n${secret}`).digest();
}

export function sealText(plain: string, secret: string, purpose: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key(secret, purpose), iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `v1.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${data.toString('base64url')}`;
}

/** Throws when the value is not ours, was altered, or was sealed with another secret or purpose. */
export function openText(sealed: string, secret: string, purpose: string): string {
  const [v, iv, tag, data] = sealed.split('.');
  if (v !== 'v1' || !iv || !tag || !data) throw new Error('Unreadable sealed value');
  const decipher = createDecipheriv('aes-256-gcm', key(secret, purpose), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}
