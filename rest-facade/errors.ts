// ResponseStatus errors (CONTRACT §10): GraphQL error codes mapped to HTTP statuses in one table.
import { nameKey, restFieldName, toRest } from './names.js';

/** The closed vocabulary of error codes the facade answers with, and the status of each. */
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
  // A document over the GraphQL limits (CONTRACT §13): only when GRAPHQL_MAX_COST is set below what a route sends.
  QueryTooComplex: 400,
  InternalServerError: 500,
} as const;
export type RestErrorCode = keyof typeof statusOf;
export type FieldCode = 'NotEmpty' | 'InvalidFormat' | 'InvalidValue' | 'OutOfRange' | 'TooLong' | 'TooShort';

export interface ResponseError {
  ErrorCode: string;
  FieldName: string;
  Message: string;
  Meta?: Record<string, unknown>;
}

export interface ResponseStatus {
  ErrorCode: string;
  Message: string;
  Errors: ResponseError[];
  Meta?: Record<string, unknown>;
}

/** An error the facade answers with; thrown inside the facade and turned into a response at its edge. */
export class RestError extends Error {
  readonly status: number;
  readonly body: ResponseStatus;
  readonly headers: Record<string, string>;
  constructor(status: number, body: ResponseStatus, headers: Record<string, string> = {}) {
    super(body.Message);
    this.name = 'RestError';
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

export const isRestError = (e: unknown): e is RestError =>
  typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'RestError';

export function restError(code: RestErrorCode, message: string, meta?: Record<string, unknown>): RestError {
  return new RestError(statusOf[code], {
    ErrorCode: code,
    Message: message,
    Errors: [],
    ...(meta ? { Meta: meta } : {}),
  });
}

/** A 400 naming fields; the first error gives the top-level code and message (CONTRACT §10). */
export function fieldErrors(errors: ResponseError[]): RestError {
  const first = errors[0]!;
  return new RestError(400, { ErrorCode: first.ErrorCode, Message: first.Message, Errors: errors });
}

export const fieldError = (
  code: FieldCode,
  field: string,
  message: string,
  meta?: Record<string, unknown>,
): ResponseError => ({
  ErrorCode: code,
  FieldName: field,
  Message: message,
  ...(meta ? { Meta: meta } : {}),
});

export interface GraphQLErrorLike {
  message: string;
  extensions?: Record<string, unknown> | undefined;
}

const known = (code: unknown): code is RestErrorCode =>
  typeof code === 'string' && Object.hasOwn(statusOf, code);

/**
 * A GraphQL error in REST terms. `aliases` maps a canonical field key to the name the client sent, so an
 * error names the field as the client wrote it (`Event` for `Events`).
 */
export function fromGraphQL(
  e: GraphQLErrorLike,
  aliases: ReadonlyMap<string, string> = new Map(),
): RestError {
  const ext = e.extensions ?? {};
  const code = known(ext.code) ? ext.code : 'InternalServerError';
  const rename = (field: string): string => {
    const rest = restFieldName(field);
    return aliases.get(nameKey(rest)) ?? rest;
  };
  const errors = Array.isArray(ext.errors)
    ? (ext.errors as { code?: unknown; field?: unknown; message?: unknown; meta?: unknown }[]).map((x) => ({
        ErrorCode: String(x.code ?? code),
        FieldName: typeof x.field === 'string' ? rename(x.field) : '',
        Message:
          typeof x.field === 'string'
            ? restWording(String(x.message ?? ''), rename(x.field), x.field)
            : restWording(String(x.message ?? ''), ''),
        ...(x.meta && typeof x.meta === 'object' ? { Meta: toRest(x.meta) as Record<string, unknown> } : {}),
      }))
    : [];
  if (
    errors.length === 0 &&
    typeof ext.field === 'string' &&
    statusOf[code] === 400 &&
    code !== 'RuleViolation'
  )
    errors.push({
      ErrorCode: code,
      FieldName: rename(ext.field),
      Message: restWording(e.message, rename(ext.field), ext.field),
    });
  const meta =
    ext.meta && typeof ext.meta === 'object' ? (toRest(ext.meta) as Record<string, unknown>) : undefined;
  const status = statusOf[code];
  const message =
    code === 'InternalServerError' && !known(ext.code)
      ? 'An unexpected error occurred.'
      : (errors[0]?.Message ?? restWording(e.message, ''));
  return new RestError(
    status,
    { ErrorCode: code, Message: message, Errors: errors, ...(meta ? { Meta: meta } : {}) },
    authHeaders(code, meta),
  );
}

/** GraphQL's own phrasing, which a REST client must never see (CONTRACT §13). */
const GRAPHQL_WORDING = /Variable "\$|got invalid value|cannot represent|Expected type|Argument "|Field "/;

/**
 * A message in REST words (CONTRACT §13). A message that opens with the GraphQL name of its field (`seats must be
 * between 1 and 9`, `input.licensePlate.number …`) opens with the REST name instead (`Seats …`); GraphQL coercion
 * messages (`Variable "$input" got invalid value … at "input.seats"; Int cannot represent …`) become the field's
 * name and our own reason when there is one, a plain sentence when not.
 */
export function restWording(message: string, field: string, graphqlField?: string): string {
  if (!GRAPHQL_WORDING.test(message)) {
    if (!graphqlField || !field) return message;
    const names = [graphqlField, graphqlField.replace(/^input\./, ''), graphqlField.split('.').at(-1) ?? ''];
    const used = names.find((n) => n !== '' && message.startsWith(`${n} `));
    return used ? `${field}${message.slice(used.length)}` : message;
  }
  const reason = message.split('; ').at(-1) ?? '';
  const subject = field || 'A value in the request';
  if (reason && !GRAPHQL_WORDING.test(reason) && /^[a-z]/.test(reason)) return `${subject} ${reason}`;
  if (/non 32-bit/.test(message)) return `${subject} is out of range`;
  return `${subject} is not valid`;
}

/** RFC 6750 challenges: 401 always names the realm; a bad token and a missing scope say so. */
export function authHeaders(
  code: string,
  meta?: Record<string, unknown>,
  hadToken = false,
): Record<string, string> {
  if (code === 'Unauthorized')
    return {
      'WWW-Authenticate': hadToken
        ? 'Bearer realm="carshare", error="invalid_token"'
        : 'Bearer realm="carshare"',
    };
  if (code === 'Forbidden' && meta?.Reason === 'InsufficientScope')
    return { 'WWW-Authenticate': 'Bearer realm="carshare", error="insufficient_scope"' };
  return {};
}
