// Scalars shared by every subdomain: DateTime (ISO 8601 UTC only, CONTRACT §2), UUID and JSON. The REST facade
// reads ids and dates with these same scalars, taken from the schema it is given (rest-facade/binding.ts).
import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { readUtc } from '../shared/calendar.js';
import { isUuid } from '../shared/ids.js';

function parseUtc(value: unknown): Date {
  const read =
    typeof value === 'string'
      ? readUtc(value)
      : { ok: false as const, code: 'InvalidFormat' as const, message: 'must be a string' };
  if (!read.ok) throw new GraphQLError(read.message, { extensions: { code: read.code } });
  return read.date;
}

/** Refusals of a literal carry its node, so the error can name the argument it was written for. */
function atLiteral<T>(ast: ValueNode, parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    if (!(e instanceof GraphQLError)) throw e;
    throw new GraphQLError(e.message, { nodes: ast, extensions: e.extensions });
  }
}

/** A scalar written as a string literal: anything else is InvalidFormat, and a refusal points at the literal. */
const stringLiteral =
  <T>(parse: (value: string) => T) =>
  (ast: ValueNode): T =>
    atLiteral(ast, () => {
      if (ast.kind !== Kind.STRING)
        throw new GraphQLError('must be a string', { extensions: { code: 'InvalidFormat' } });
      return parse(ast.value);
    });

/**
 * Text already in the scalar's own form (`2026-07-03T12:00:00.000Z`): a read view's timestamp (src/db/views.ts),
 * written as it is. Anything else is read as a date and written anew.
 */
const isIsoText = (v: string): boolean =>
  v.length === 24 &&
  v.charCodeAt(23) === 90 /* Z */ &&
  v.charCodeAt(10) === 84 /* T */ &&
  v.charCodeAt(19) === 46; /* . */

export const DateTime = new GraphQLScalarType<Date | string, string>({
  name: 'DateTime',
  description: 'An instant in UTC, ISO 8601 with milliseconds: 2026-07-03T12:00:00.000Z',
  serialize: (v) => {
    if (typeof v === 'string' && isIsoText(v)) return v;
    const d = v instanceof Date ? v : new Date(String(v));
    return d.toISOString();
  },
  parseValue: parseUtc,
  parseLiteral: stringLiteral(parseUtc),
});

function literal(ast: ValueNode, vars: Record<string, unknown> | null | undefined): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return ast.values.map((v) => literal(v, vars));
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, literal(f.value, vars)]));
    case Kind.VARIABLE:
      return vars?.[ast.name.value];
    default:
      return undefined;
  }
}

export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: (ast, vars) => literal(ast, vars),
});

function parseUuid(value: unknown): string {
  if (!isUuid(value))
    throw new GraphQLError('must be a UUID (8-4-4-4-12 hexadecimal digits)', {
      extensions: { code: 'InvalidFormat' },
    });
  return value.toLowerCase();
}

export const UUIDScalar = new GraphQLScalarType<string, string>({
  name: 'UUID',
  description: 'A resource id: a lowercase UUID, 8-4-4-4-12 hexadecimal digits',
  serialize: (v) => String(v),
  parseValue: parseUuid,
  parseLiteral: stringLiteral(parseUuid),
});
