// ResponseStatus errors (CONTRACT §10): GraphQL error codes in REST terms, with the HTTP status of each.
import { nameKey, restFieldName, toRest } from './names.js';

/**
 * The error vocabulary the facade answers with: every code with its HTTP status, and the message of an unexpected
 * error. The service states it once (src/shared/errors.ts, which its Koa edge and GraphQL errors use too) and hands it
 * over when it builds the facade: this folder imports nothing from src/ (the dependency rule), so it keeps no copy.
 */
export interface ErrorTable {
  statusOf: Readonly<Record<string, number>>;
  /** What a 500 says; its cause is only logged. */
  masked: string;
  /** `Meta.Help` of an answer with this code: the absolute URL, under `publicUrl`, of the docs section on it. */
  help(publicUrl: string, code: string): string;
  /**
   * The `WWW-Authenticate` challenge for an error code and its meta (`hadToken`: an Unauthorized answer to a request
   * that sent a token, which is then not valid), or undefined when the error is not about the token: the service's
   * one builder, so the facade and /graphql answer a token alike.
   */
  challenge(code: string, meta?: Record<string, unknown>, hadToken?: boolean): string | undefined;
}

/** A code of the table's field errors; which codes those are is the table's business, not a list here. */
export type FieldCode = string;

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

/**
 * An error the facade answers with; thrown inside the facade and turned into a response at its edge, where its
 * code gives the status (`statusFor`).
 */
export class RestError extends Error {
  readonly body: ResponseStatus;
  readonly headers: Record<string, string>;
  constructor(body: ResponseStatus, headers: Record<string, string> = {}) {
    super(body.Message);
    this.name = 'RestError';
    this.body = body;
    this.headers = headers;
  }
}

/** The status an error answers with; a code missing from the table is a bug, so a 500. */
export const statusFor = (table: ErrorTable, e: RestError): number => table.statusOf[e.body.ErrorCode] ?? 500;

export const isRestError = (e: unknown): e is RestError =>
  typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'RestError';

export function restError(code: string, message: string, meta?: Record<string, unknown>): RestError {
  return new RestError({
    ErrorCode: code,
    Message: message,
    Errors: [],
    ...(meta ? { Meta: meta } : {}),
  });
}

/** A 400 naming fields; the first error gives the top-level code and message (CONTRACT §10). */
export function fieldErrors(errors: ResponseError[]): RestError {
  const first = errors[0]!;
  return new RestError({ ErrorCode: first.ErrorCode, Message: first.Message, Errors: errors });
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

/**
 * A GraphQL error in REST terms. `aliases` maps a canonical field key to the name the client sent, so an
 * error names the field as the client wrote it (`Event` for `Events`). A code the table does not know is an
 * unexpected error: a 500 with the masked message.
 */
export function fromGraphQL(
  e: GraphQLErrorLike,
  table: ErrorTable,
  aliases: ReadonlyMap<string, string> = new Map(),
): RestError {
  const ext = e.extensions ?? {};
  const known = typeof ext.code === 'string' && Object.hasOwn(table.statusOf, ext.code);
  const code = known ? (ext.code as string) : 'InternalServerError';
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
    table.statusOf[code] === 400 &&
    code !== 'RuleViolation'
  )
    errors.push({
      ErrorCode: code,
      FieldName: rename(ext.field),
      Message: restWording(e.message, rename(ext.field), ext.field),
    });
  const meta =
    ext.meta && typeof ext.meta === 'object' ? (toRest(ext.meta) as Record<string, unknown>) : undefined;
  const message = known ? (errors[0]?.Message ?? restWording(e.message, '')) : table.masked;
  return new RestError(
    { ErrorCode: code, Message: message, Errors: errors, ...(meta ? { Meta: meta } : {}) },
    authHeaders(table, code, meta),
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
  table: ErrorTable,
  code: string,
  meta?: Record<string, unknown>,
  hadToken = false,
): Record<string, string> {
  const challenge = table.challenge(code, meta, hadToken);
  return challenge ? { 'WWW-Authenticate': challenge } : {};
}
