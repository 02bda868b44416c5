// Booking references: 8 characters from A–Z and 2–9 (34 symbols, ~40 bits), drawn by the CSPRNG so that
// knowing one reference tells nothing about another.
import { randomInt } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ23456789';
export const REFERENCE = /^[A-Z2-9]{8}$/;

export function newReference(): string {
  let s = '';
  // randomInt draws without modulo bias.
  for (let i = 0; i < 8; i += 1) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

/**
 * A reference no booking holds yet. A clash is about one in 10^12 per booking; checking first keeps a clash
 * from aborting the transaction on the unique index, which remains the final guard.
 */
export async function freshReference(em: EntityManager): Promise<string> {
  for (;;) {
    const ref = newReference();
    const taken = await em
      .getConnection()
      .execute<{ n: number }[]>(
        'select 1 as n from car_booking where reference = ?',
        [ref],
        'all',
        em.getTransactionContext(),
      );
    if (taken.length === 0) return ref;
  }
}
