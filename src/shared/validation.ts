// Collects field errors so one response names every invalid field (CONTRACT §10).
import { type FieldError, type FieldErrorCode, fieldLabel, validationError } from './errors.js';

/** `local@domain`, one `@`, no white space: read once, so it never backtracks (CONTRACT §28). */
const EMAIL = /^[^\s@]+@[^\s@]+$/;
/** The longest e-mail address (RFC 5321's path limit); longer text is refused before any pattern reads it. */
export const MAX_EMAIL = 254;
const E164 = /^\+[1-9]\d{6,14}$/;

export class Check {
  readonly errors: FieldError[] = [];

  /** Records an error; a field keeps only its first one, so each is named once. */
  add(code: FieldErrorCode, field: string, message: string, meta?: Record<string, unknown>): this {
    if (this.errors.some((e) => e.field === field)) return this;
    this.errors.push(meta ? { code, field, message, meta } : { code, field, message });
    return this;
  }

  /** Present, and for strings not blank. Returns whether the value can be checked further. */
  required(field: string, value: unknown): boolean {
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
      this.add('NotEmpty', field, `${fieldLabel(field)} must not be empty`);
      return false;
    }
    return true;
  }

  length(field: string, value: string | null | undefined, min: number, max: number): this {
    if (value === undefined || value === null) return this;
    if (value.length < min)
      this.add('TooShort', field, `${fieldLabel(field)} must be at least ${min} characters`, { Min: min });
    else if (value.length > max)
      this.add('TooLong', field, `${fieldLabel(field)} must be at most ${max} characters`, { Max: max });
    return this;
  }

  range(field: string, value: number | null | undefined, min: number, max: number): this {
    if (value === undefined || value === null) return this;
    if (!Number.isFinite(value) || value < min || value > max)
      this.add('OutOfRange', field, `${fieldLabel(field)} must be between ${min} and ${max}`, {
        Min: min,
        Max: max,
      });
    return this;
  }

  integer(field: string, value: number | null | undefined): this {
    if (value !== undefined && value !== null && !Number.isInteger(value))
      this.add('InvalidFormat', field, `${fieldLabel(field)} must be a whole number`);
    return this;
  }

  oneOf<T extends string>(field: string, value: string | null | undefined, allowed: readonly T[]): this {
    if (value === undefined || value === null) return this;
    if (!(allowed as readonly string[]).includes(value))
      this.add('InvalidValue', field, `${fieldLabel(field)} must be one of ${allowed.join(', ')}`, {
        Allowed: allowed,
      });
    return this;
  }

  /** Whether the field has an error already: its value is not read further (no pattern after a failed length). */
  failed(field: string): boolean {
    return this.errors.some((e) => e.field === field);
  }

  pattern(field: string, value: string | null | undefined, re: RegExp, what: string): this {
    if (value === undefined || value === null || this.failed(field)) return this;
    if (!re.test(value)) this.add('InvalidFormat', field, `${fieldLabel(field)} must be ${what}`);
    return this;
  }

  /** An address with a dot inside its domain (`a@b.c`): the pattern checks the shape, the dot is found by hand. */
  email(field: string, value: string | null | undefined): this {
    if (value === undefined || value === null || this.failed(field)) return this;
    if (value.length > MAX_EMAIL) return this.length(field, value, 0, MAX_EMAIL);
    const domain = value.slice(value.indexOf('@') + 1);
    if (!EMAIL.test(value) || !domain.slice(1, -1).includes('.'))
      this.add('InvalidFormat', field, `${fieldLabel(field)} must be an email address`);
    return this;
  }

  e164(field: string, value: string | null | undefined): this {
    return this.pattern(field, value, E164, 'a phone number in E.164 form, e.g. +14155550123');
  }

  url(field: string, value: string | null | undefined, protocols: readonly string[] = ['https:']): this {
    if (value === undefined || value === null) return this;
    let ok = false;
    try {
      ok = protocols.includes(new URL(value).protocol);
    } catch {
      ok = false;
    }
    if (!ok)
      this.add(
        'InvalidFormat',
        field,
        `${fieldLabel(field)} must be an absolute ${protocols.join(' or ')} URL`,
      );
    return this;
  }

  /** Throws one validation error carrying every field error collected so far. */
  throwIfAny(): void {
    if (this.errors.length > 0) throw validationError(this.errors);
  }
}
