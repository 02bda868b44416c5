// Booking references: 8 characters from A–Z and 2–9 (34 symbols, ~40 bits), drawn by the CSPRNG so that
// knowing one reference tells nothing about another.
import { randomInt } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ23456789';
export const REFERENCE = /^[A-Z2-9]{8}$/;

export function newReference(): string {
  let s = '';
  // randomInt draws without modulo bias.
  for (let i = 0; i < 8; i += 1) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}
