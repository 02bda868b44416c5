// Client credentials: random public ids, 256-bit secrets shown once, and the one-way hash that is all we keep.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const newClientId = (): string => `ca_${randomBytes(15).toString('base64url')}`;

/** 256 random bits, base64url (43 characters). */
export const newClientSecret = (): string => randomBytes(32).toString('base64url');

/**
 * A plain SHA-256 is enough for 256-bit random secrets (nothing to brute-force), and keeps the token endpoint
 * cheap; passwords, which people choose, get argon2 instead.
 */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('base64url');

export function secretMatches(presented: unknown, storedHash: string): boolean {
  if (typeof presented !== 'string' || presented.length === 0 || presented.length > 512) return false;
  const a = Buffer.from(hashSecret(presented));
  const b = Buffer.from(storedHash);
  return a.length === b.length && timingSafeEqual(a, b);
}
