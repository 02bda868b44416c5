// The admin command line's own terms for refusals (CONTRACT §27): a missing option is a usage error (exit 2); a
// refused value prints the API's error shape naming the option as typed (`--scopes`), not the field it feeds.
import { type DomainError, fieldLabel } from './errors.js';

/** A call the command cannot run at all: its usage is printed and the process exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Refuses the call when one of these options is absent. */
export function requireOptions(values: Readonly<Record<string, unknown>>, names: readonly string[]): void {
  const missing = names.filter((n) => values[n] === undefined);
  if (missing.length > 0) throw new UsageError(`missing ${missing.map((n) => `--${n}`).join(', ')}`);
}

/** The option that feeds each input field of a command (`allowedScopes` → `--scopes`). */
export type OptionNames = Readonly<Record<string, string>>;

/**
 * A refusal in the API's own shape (CONTRACT §10's ResponseStatus), so scripts read one vocabulary, with each
 * field named by the option that carries it, in the messages too (`--scopes: x is not a scope of the API`).
 */
export function commandLineError(err: DomainError, options: OptionNames) {
  const { errors, meta } = err.details;
  const name = (field: string): string => options[field.split('.')[0] ?? ''] ?? fieldLabel(field);
  const reword = (message: string, field: string): string => {
    const label = fieldLabel(field);
    const option = name(field);
    return label && option !== label ? message.split(label).join(option) : message;
  };
  const entries = (errors ?? []).map((e) => ({
    ErrorCode: e.code,
    FieldName: name(e.field),
    Message: reword(e.message, e.field),
    ...(e.meta ? { Meta: e.meta } : {}),
  }));
  const first = errors?.[0];
  return {
    ErrorCode: err.code,
    Message: first
      ? reword(err.message, first.field)
      : err.details.field
        ? reword(err.message, err.details.field)
        : err.message,
    Errors: entries,
    ...(meta ? { Meta: meta } : {}),
  };
}
