// The closed vocabulary of errors (CONTRACT §10, §13), stated once for the whole service: each code, the HTTP
// status it answers with, and the message of an unexpected error. Commands throw domain errors; GraphQL exposes
// the code; the Koa edge and the REST facade (handed this table at its construction, since rest-facade/ imports
// nothing from src/) answer with its status.

import { bearerChallenge, INVALID_TOKEN } from './challenge.js';
import { trimEnd } from './trim.js';

/** Every error code an answer may carry, and its HTTP status. */
export const statusOf = {
  NotEmpty: 400,
  InvalidFormat: 400,
  InvalidValue: 400,
  OutOfRange: 400,
  TooLong: 400,
  TooShort: 400,
  RuleViolation: 400,
  Unauthorized: 401,
  Forbidden: 403,
  HttpsRequired: 403,
  // The car share the request addresses is suspended (CONTRACT §23): every path but the probes, raised by the edge.
  CarShareSuspended: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  UnsupportedFormat: 406,
  InvalidStateTransition: 409,
  CarUnavailable: 409,
  AlreadyExists: 409,
  Conflict: 409,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  TooManyRequests: 429,
  // Headers over 16 KiB, refused by Node before any middleware runs (CONTRACT §13, src/client-error.ts).
  RequestHeaderFieldsTooLarge: 431,
  // A document over the GraphQL limits (CONTRACT §13), raised by the limits alone, never by a command; the facade
  // meets it only when GRAPHQL_MAX_COST is set below what a route sends.
  QueryTooComplex: 400,
  InternalServerError: 500,
  // The service could not start the request's work within 5 s (CONTRACT §28): raised by the execution gate alone
  // (src/graphql/execution-gate.ts), never by a command; answered with `Retry-After`.
  ServiceUnavailable: 503,
} as const satisfies Record<string, number>;

export type ResponseCode = keyof typeof statusOf;
/** Codes only the service's edges raise (the GraphQL limits, Node's HTTP parser), never a command. */
type EdgeCode =
  | 'QueryTooComplex'
  | 'RequestHeaderFieldsTooLarge'
  | 'ServiceUnavailable'
  | 'CarShareSuspended';
const edgeCodes: ReadonlySet<string> = new Set<EdgeCode>([
  'CarShareSuspended',
  'QueryTooComplex',
  'RequestHeaderFieldsTooLarge',
  'ServiceUnavailable',
]);

/** The codes a domain error may carry: every code but the edges' own. */
export type ErrorCode = Exclude<ResponseCode, EdgeCode>;
export const errorCodes = Object.keys(statusOf).filter((c): c is ErrorCode => !edgeCodes.has(c));

/** What an unexpected error says on every API; its cause goes to the log, with the request id to quote. */
export const MASKED_MESSAGE = 'An unexpected error occurred. Quote the request id to support.';

/** The anchor, in /docs, of the section that explains a code (the Errors guide, src/web/errors.guide.ts). */
export const helpAnchor = (code: string): string => `error-${code}`;

/** `Meta.Help` of an answer (CONTRACT §27): the absolute URL of the /docs section explaining its code. */
export const helpUrl = (publicUrl: string, code: string): string =>
  `${trimEnd(publicUrl, '/')}/docs#${helpAnchor(code)}`;

/** The vocabulary as the REST facade takes it at its construction (`rest-facade/errors.ts`, `ErrorTable`). */
export const errorTable = {
  statusOf,
  masked: MASKED_MESSAGE,
  help: helpUrl,
  challenge: (code: string, meta?: Record<string, unknown>, hadToken = false) =>
    bearerChallenge(code, hadToken && code === 'Unauthorized' ? { ...meta, Reason: INVALID_TOKEN } : meta)
      ?.header,
} as const;

export const fieldErrorCodes = [
  'NotEmpty',
  'InvalidFormat',
  'InvalidValue',
  'OutOfRange',
  'TooLong',
  'TooShort',
] as const satisfies readonly ErrorCode[];
export type FieldErrorCode = (typeof fieldErrorCodes)[number];

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

/** The `ResponseStatus` body of CONTRACT §10, with `Meta.Help` under `publicUrl` (§27). */
export function responseStatus(
  publicUrl: string,
  code: ResponseCode,
  message: string,
  meta?: Record<string, unknown>,
) {
  return {
    ResponseStatus: {
      ErrorCode: code,
      Message: message,
      Errors: [],
      Meta: { ...meta, Help: helpUrl(publicUrl, code) },
    },
  };
}
