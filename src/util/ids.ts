import { randomBytes, createHash } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A 20-character random identifier over [A-Za-z0-9] (about 119 bits), valid as an EntityId. */
export function newId(length = 20): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    const b = bytes[i];
    if (b < 248) out += ALPHABET[b % 62]; // 248 = 4 * 62: rejection sampling keeps it uniform
  }
  return out.length === length ? out : newId(length);
}

/**
 * A 20-character identifier like `newId`, derived from `parts`: the same parts give the same id.
 * For an effect that must happen once per operation (the revision a git import creates), so a
 * second run of the operation finds what the first one made.
 */
export function derivedId(...parts: string[]): string {
  let n = BigInt(`0x${createHash('sha256').update(parts.join('\n')).digest('hex')}`);
  let out = '';
  for (let i = 0; i < 20; i++) {
    out += ALPHABET[Number(n % 62n)];
    n /= 62n;
  }
  return out;
}

export function sha256Hex(input: string | Buffer): string {
  return createHash('sha256').update(input).digest('hex');
}

/** Opaque bearer token: a recognisable prefix plus 256 random bits. Only its hash is stored. */
export function newToken(): string {
  return `dp_${randomBytes(32).toString('base64url')}`;
}
