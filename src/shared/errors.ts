// The closed vocabulary of domain errors (CONTRACT §10). Thrown by commands; GraphQL exposes the code.

/** The codes a single field's problem is told with, first in the vocabulary below. */
export const fieldErrorCodes = [
  'NotEmpty',
  'InvalidFormat',
  'InvalidValue',
  'OutOfRange',
  'TooLong',
  'TooShort',
] as const;
export type FieldErrorCode = (typeof fieldErrorCodes)[number];

export const errorCodes = [
  ...fieldErrorCodes,
  'RuleViolation',
  'Unauthorized',
  'Forbidden',
  'HttpsRequired',
  'NotFound',
  'MethodNotAllowed',
  'UnsupportedFormat',
  'InvalidStateTransition',
  'CarUnavailable',
  'AlreadyExists',
  'Conflict',
  'PayloadTooLarge',
  'UnsupportedMediaType',
  'TooManyRequests',
  'InternalServerError',
] as const;
export type ErrorCode = (typeof errorCodes)[number];

export interface FieldError {
  code: FieldErrorCode;
  /** GraphQL argument path, e.g. `input.seats` or `config.url`; the facade maps it to REST terms. */
  field: string;
  message: string;
  meta?: Record<string, unknown>;
}

export interface DomainErrorDetails {
  field?: string;
  errors?: FieldError[];
  meta?: Record<string, unknown>;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: DomainErrorDetails;
  constructor(code: ErrorCode, message: string, details: DomainErrorDetails = {}) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
  }
}

export const notFound = (what: string): DomainError => new DomainError('NotFound', `${what} was not found`);
export const forbidden = (message = 'You are not allowed to do this'): DomainError =>
  new DomainError('Forbidden', message);
export const unauthorized = (message = 'Authentication is required'): DomainError =>
  new DomainError('Unauthorized', message);
export const ruleViolation = (
  rule: string,
  message: string,
  meta: Record<string, unknown> = {},
): DomainError => new DomainError('RuleViolation', message, { meta: { Rule: rule, ...meta } });
export const invalidState = (state: string, message: string): DomainError =>
  new DomainError('InvalidStateTransition', message, { meta: { State: state } });

/**
 * A field as messages name it, the way REST's `FieldName` does: the argument wrapper goes, each segment is
 * PascalCase (`input.seats` → `Seats`, `config.url` → `Config.Url`), so a message reads the same on both APIs.
 */
export function fieldLabel(field: string): string {
  const segments = field.split('.').filter((s) => s !== '' && !/^\d+$/.test(s));
  if (segments[0] === 'input' && segments.length > 1) segments.shift();
  return segments.map((s) => s.charAt(0).toUpperCase() + s.slice(1)).join('.');
}

/** One error from a list of field errors: the first names the top-level code and message. */
export function validationError(errors: FieldError[]): DomainError {
  const first = errors[0];
  if (!first) throw new Error('validationError needs at least one field error');
  return new DomainError(first.code, first.message, { field: first.field, errors });
}

/** Duck-typed check: under vitest a module can load twice, so instanceof is not reliable. */
export function isDomainError(e: unknown): e is DomainError {
  return (
    typeof e === 'object' &&
    e !== null &&
    (e as { name?: unknown }).name === 'DomainError' &&
    typeof (e as { code?: unknown }).code === 'string'
  );
}

/** The `ResponseStatus` body of CONTRACT §10. */
export function responseStatus(code: ErrorCode, message: string, meta?: Record<string, unknown>) {
  return {
    ResponseStatus: { ErrorCode: code, Message: message, Errors: [], ...(meta ? { Meta: meta } : {}) },
  };
}
