// GraphQL error shaping, all of it: `formatError` gives each error its shape (domain errors keep their code and
// fields; everything unexpected is masked), and `unexpectedErrorsPlugin` logs what was masked and hands the caller
// the request id to quote.
import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError, Kind, type Source } from 'graphql';
import { errorCodes, fieldLabel, isDomainError, MASKED_MESSAGE } from '../shared/errors.js';
import type { Context } from './context.js';
import { argumentAt } from './error-location.js';
import { isGateRefusal, refusalError } from './execution-lane.js';

const passThrough = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND',
]);
const known = new Set<string>(errorCodes);

/** Where GraphQL's own input coercion names the offending argument: `... at "input.seats"` or `$input`. */
function fieldFromCoercion(message: string): string | undefined {
  const at = /at "([^"]+)"/.exec(message)?.[1];
  if (at) return at;
  return /Variable "\$([^"]+)"/.exec(message)?.[1] ?? /Argument "([^"]+)"/.exec(message)?.[1];
}

/** GraphQL's extensions are camelCase to the last key; domain errors carry REST's PascalCase `Meta` keys. */
function camelKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k.charAt(0).toLowerCase() + k.slice(1), camelKeys(v)]),
  );
}

/** Our scalars' refusals ("must be a UUID …") read as a sentence about the argument: "Id must be a UUID …". */
const aboutField = (field: string, refusal: string): string => `${fieldLabel(field)} ${refusal}`;

const pick = (ext: Readonly<Record<string, unknown>> | undefined, key: string) =>
  ext && ext[key] !== undefined ? { [key]: ext[key] } : {};

export function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  if (isDomainError(original)) {
    const { field, errors, meta } = original.details;
    return {
      message: original.message,
      ...(formatted.locations ? { locations: formatted.locations } : {}),
      ...(formatted.path ? { path: formatted.path } : {}),
      extensions: {
        code: original.code,
        ...(field ? { field } : {}),
        errors: (errors ?? []).map((x) => (x.meta ? { ...x, meta: camelKeys(x.meta) } : x)),
        ...(meta ? { meta: camelKeys(meta) } : {}),
      },
    };
  }
  const code = formatted.extensions?.code;
  // CONTRACT §13: a document over the limits says which one and by how much.
  if (code === 'QueryTooComplex')
    return { message: formatted.message, extensions: { code, ...pick(formatted.extensions, 'meta') } };
  const outer = original as
    | {
        originalError?: {
          message?: string;
          extensions?: { code?: unknown };
          source?: Source;
          positions?: readonly number[];
        };
        source?: Source;
        positions?: readonly number[];
      }
    | undefined;
  const inner = outer?.originalError;
  const innerCode = typeof inner?.extensions?.code === 'string' ? inner.extensions.code : undefined;
  // A literal argument our scalars refused (a malformed UUID or date) is a field error, not a bad document:
  // name the argument and the field that takes it, as an error raised while executing would.
  if (code === 'GRAPHQL_VALIDATION_FAILED' && innerCode && known.has(innerCode)) {
    const at = argumentAt(outer?.source ?? inner?.source, outer?.positions?.[0] ?? inner?.positions?.[0]);
    const message = at && inner?.message ? aboutField(at.field, inner.message) : formatted.message;
    return {
      message,
      ...(formatted.locations ? { locations: formatted.locations } : {}),
      ...(at ? { path: at.path } : {}),
      extensions: {
        code: innerCode,
        ...(at ? { field: at.field } : {}),
        errors: at ? [{ code: innerCode, field: at.field, message }] : [],
      },
    };
  }
  if (typeof code === 'string' && passThrough.has(code))
    return { message: formatted.message, extensions: { code } };
  if (
    code === 'BAD_USER_INPUT' ||
    (typeof code === 'string' && known.has(code) && code !== 'InternalServerError')
  ) {
    // Input coercion (wrong type, bad DateTime): a field error naming the argument.
    // An integer wider than GraphQL's 32 bits is out of range (CONTRACT §13), not merely invalid.
    const coerced = /non 32-bit signed integer/.test(formatted.message) ? 'OutOfRange' : 'InvalidValue';
    const fieldCode =
      innerCode && known.has(innerCode) ? innerCode : code === 'BAD_USER_INPUT' ? coerced : code;
    const given = formatted.extensions?.field;
    const field = typeof given === 'string' ? given : fieldFromCoercion(formatted.message);
    const message =
      field && innerCode && known.has(innerCode) && inner?.message
        ? aboutField(field, inner.message)
        : formatted.message;
    return {
      message,
      extensions: {
        code: fieldCode,
        ...(field ? { field } : {}),
        errors: field ? [{ code: fieldCode, field, message }] : [],
      },
    };
  }
  return {
    message: MASKED_MESSAGE,
    ...(formatted.path ? { path: formatted.path } : {}),
    extensions: { code: 'InternalServerError', errors: [] },
  };
}

/** An error that was not ours (no domain error, no code Apollo gave it) is logged with its cause. */
function logUnexpected(errors: readonly GraphQLError[], log: Context['log']): void {
  for (const e of errors) {
    const code = e.extensions?.code;
    const original = e.originalError;
    if (isDomainError(original) || (typeof code === 'string' && code !== 'INTERNAL_SERVER_ERROR')) continue;
    log.error({ err: original ?? e, path: e.path }, 'unexpected error in GraphQL');
  }
}

/** A masked error carries the request id a caller can quote to support. */
const withRequestId = (e: GraphQLFormattedError, requestId: string): GraphQLFormattedError =>
  e.extensions?.code === 'InternalServerError'
    ? { ...e, extensions: { ...e.extensions, meta: { requestId } } }
    : e;

/**
 * Apollo's side of masking, which needs the request: what was not ours is logged, and its masked answer carries
 * the request id.
 */
export const unexpectedErrorsPlugin: ApolloServerPlugin<Context> = {
  async requestDidStart() {
    return {
      async didEncounterErrors(rc) {
        logUnexpected(rc.errors, rc.contextValue.log);
      },
      async willSendResponse(rc) {
        const body = rc.response.body;
        if (body.kind !== 'single' || !body.singleResult.errors) return;
        body.singleResult.errors = body.singleResult.errors.map((e) =>
          withRequestId(e, rc.contextValue.requestId),
        );
      },
    };
  },
};

/**
 * A variable's value refused before anything ran (Apollo's `isBadUserInputGraphQLError`): Apollo gives it the code
 * `BAD_USER_INPUT`, which `formatError` turns into a field error naming the variable.
 */
function isVariableRefusal(e: GraphQLError): boolean {
  const node = e.nodes?.length === 1 ? e.nodes[0] : undefined;
  if (node?.kind !== Kind.VARIABLE_DEFINITION || e.extensions?.code != null) return false;
  const variable = `Variable "$${node.variable.name.value}" `;
  return ['has invalid value', 'got invalid value ', 'of required type ', 'of non-null type '].some((rest) =>
    e.message.startsWith(variable + rest),
  );
}

/** An error wrapped as Apollo wraps it (its `GraphQLErrorWithCode` classes): the code added, the cause kept. */
const withCode = (e: GraphQLError, code: string): GraphQLError =>
  new GraphQLError(e.message, {
    ...(e.nodes ? { nodes: e.nodes } : {}),
    originalError: e.originalError ?? e,
    extensions: { ...e.extensions, code },
  });

/** Apollo's enrichment (the error's JSON, INTERNAL_SERVER_ERROR when it has no code), `formatError`, the request id. */
function shaped(e: GraphQLError, ctx: Pick<Context, 'requestId'>): GraphQLFormattedError {
  const { http: _http, ...extensions } = e.extensions ?? {};
  const enriched = {
    ...e.toJSON(),
    extensions: { ...extensions, code: extensions.code ?? 'INTERNAL_SERVER_ERROR' },
  };
  return withRequestId(formatError(enriched, e), ctx.requestId);
}

/**
 * The errors of an execution run outside Apollo's pipeline (in-process.ts, graphql-ws), shaped as Apollo shapes
 * them: a variable refused is `BAD_USER_INPUT`, then the enrichment, `formatError` and what
 * `unexpectedErrorsPlugin` does. An execution the gate refused answers as on /graphql (limits.ts). Running a read
 * again through Apollo to get that shape executed every failed read twice.
 */
export function formatExecutionErrors(
  errors: readonly GraphQLError[],
  ctx: Pick<Context, 'log' | 'requestId'>,
): GraphQLFormattedError[] {
  logUnexpected(errors, ctx.log);
  return errors.map((e) => {
    if (isGateRefusal(e.originalError)) return refusalError(e.originalError);
    return shaped(isVariableRefusal(e) ? withCode(e, 'BAD_USER_INPUT') : e, ctx);
  });
}

/**
 * The errors of graphql-ws's `error` message, shaped as /graphql answers them: the limits' refusals
 * (limits.guard.ts, the rate limits) as they are; a failure while a subscription streamed as an execution's error;
 * anything else is a document that did not validate, wrapped as Apollo wraps it (`GRAPHQL_VALIDATION_FAILED`, or a
 * field error for an argument our scalars refused).
 */
export function formatRequestErrors(
  errors: readonly GraphQLError[],
  ctx: Pick<Context, 'log' | 'requestId'>,
): GraphQLFormattedError[] {
  return errors.map((e) => {
    // Validation names the document's nodes; the code it carries is a scalar's, read by `formatError`.
    if (e.nodes?.length) return shaped(withCode(e, 'GRAPHQL_VALIDATION_FAILED'), ctx);
    if (e.extensions?.code != null) {
      const { http: _http, ...extensions } = e.extensions;
      return { message: e.message, extensions };
    }
    if (e.originalError) return formatExecutionErrors([e], ctx)[0]!;
    return shaped(withCode(e, 'GRAPHQL_VALIDATION_FAILED'), ctx);
  });
}
