// Evidence per verification kind (CONTRACT §5): keys accepted in any casing, stored in canonical camelCase.
import { readUtc } from '../shared/calendar.js';
import { fieldLabel } from '../shared/errors.js';
import { matchField } from '../shared/pagination.js';
import { Check } from '../shared/validation.js';
import type { VerificationKind } from './verification.entity.js';

type FieldKind = 'email' | 'e164' | 'text' | 'futureDate' | 'optionalText';

const shapes = {
  Email: { emailAddress: 'email' },
  PhoneNumber: { phoneNumber: 'e164' },
  DriversLicense: { number: 'text', jurisdiction: 'text', expiresDateUtc: 'futureDate' },
  LicensePlate: { jurisdiction: 'text', number: 'text' },
  RoadWorthiness: { certificateNumber: 'text', expiresDateUtc: 'futureDate' },
  OperatorApproval: { note: 'optionalText' },
} as const satisfies Record<VerificationKind, Record<string, FieldKind>>;

export interface ParsedEvidence {
  evidence: Record<string, unknown>;
  /** When the evidence itself stops being valid (licence, certificate). */
  expiresDateUtc: Date | null;
}

/** Validates evidence for a kind; field errors name `evidence.<field>`. */
export function parseEvidence(kind: VerificationKind, raw: unknown, now: Date): ParsedEvidence {
  const check = new Check();
  const shape: Record<string, FieldKind> = shapes[kind];
  const input =
    raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : null;
  if (!input && kind !== 'OperatorApproval') {
    check.add('NotEmpty', 'evidence', `Evidence must be an object with: ${Object.keys(shape).join(', ')}`);
    check.throwIfAny();
  }
  // Any-case keys: `EmailAddress`, `email_address` and `emailAddress` are one field.
  const byCanonical: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input ?? {})) {
    const canonical = matchField(k, Object.keys(shape));
    if (canonical) byCanonical[canonical] = v;
  }
  const evidence: Record<string, unknown> = {};
  let expires: Date | null = null;
  for (const [name, type] of Object.entries(shape)) {
    const field = `evidence.${name}`;
    const value = byCanonical[name];
    if (type === 'optionalText') {
      if (value === undefined || value === null) continue;
      if (typeof value !== 'string') check.add('InvalidFormat', field, `${fieldLabel(field)} must be text`);
      else {
        check.length(field, value, 0, 1000);
        evidence[name] = value;
      }
      continue;
    }
    if (!check.required(field, value)) continue;
    if (typeof value !== 'string') {
      check.add('InvalidFormat', field, `${fieldLabel(field)} must be text`);
      continue;
    }
    const v = value.trim();
    if (type === 'email') check.email(field, v);
    else if (type === 'e164') check.e164(field, v);
    else if (type === 'text') check.length(field, v, 1, 100);
    else if (type === 'futureDate') {
      const read = readUtc(v);
      if (!read.ok) {
        check.add(read.code, field, `${fieldLabel(field)} ${read.message}`);
        continue;
      }
      const d = read.date;
      if (d.getTime() <= now.getTime())
        check.add('OutOfRange', field, `${fieldLabel(field)} must be in the future`);
      else {
        expires = d;
        evidence[name] = d.toISOString();
        continue;
      }
      continue;
    }
    evidence[name] = type === 'email' ? v.toLowerCase() : v;
  }
  check.throwIfAny();
  return { evidence, expiresDateUtc: expires };
}
