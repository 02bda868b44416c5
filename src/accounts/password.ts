// Passwords: argon2id hashes, and the policy of CONTRACT §7 (8–160 characters, not a known common password).
import { createRequire } from 'node:module';
import { hash, verify } from '@node-rs/argon2';
import { fieldLabel } from '../shared/errors.js';
import type { Check } from '../shared/validation.js';

// OWASP's argon2id baseline: 19 MiB, 2 iterations, 1 lane.
const OPTIONS = {
  algorithm: 2 /* Algorithm.Argon2id (a const enum) */,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

const require = createRequire(import.meta.url);
type CommonPasswords = typeof import('fxa-common-password-list').default;
let common: CommonPasswords | undefined;
/**
 * Mozilla's list, loaded when the first password is checked (a sign-up or a change): decoded, it holds ~2 MB of
 * heap that an instance serving only reads never needs. Loading takes ~15 ms, once.
 */
const commonPasswords = () => {
  common ??= require('fxa-common-password-list') as CommonPasswords;
  return common;
};

export const hashPassword = (password: string): Promise<string> => hash(password, OPTIONS);

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

export function checkPassword(check: Check, field: string, password: string | null | undefined): void {
  if (!check.required(field, password)) return;
  const pw = password as string;
  check.length(field, pw, 8, 160);
  if (pw.length >= 8 && pw.length <= 160 && commonPasswords().test(pw))
    check.add(
      'InvalidValue',
      field,
      `${fieldLabel(field)} is too common: it appears in lists of breached passwords`,
      {
        Reason: 'CommonPassword',
      },
    );
}
