// Scalars shared by every subdomain: DateTime (ISO 8601 UTC only, CONTRACT §2) and JSON.
import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';

const UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|\+00:00|-00:00)$/;

function parseUtc(value: unknown): Date {
  if (typeof value !== 'string' || !UTC.test(value))
    throw new GraphQLError('must be an ISO 8601 date and time in UTC (ending in Z or +00:00)', {
      extensions: { code: 'InvalidFormat' },
    });
  const d = new Date(value.replace(/-00:00$/, 'Z'));
  if (Number.isNaN(d.getTime()))
    throw new GraphQLError('is not a valid date', { extensions: { code: 'InvalidFormat' } });
  return d;
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

export const DateTime = new GraphQLScalarType<Date, string>({
  name: 'DateTime',
  description: 'An instant in UTC, ISO 8601 with milliseconds: 2026-07-03T12:00:00.000Z',
  serialize: (v) => {
    const d = v instanceof Date ? v : new Date(String(v));
    return d.toISOString();
  },
  parseValue: parseUtc,
  parseLiteral: (ast) =>
    atLiteral(ast, () => {
      if (ast.kind !== Kind.STRING)
        throw new GraphQLError('must be a string', { extensions: { code: 'InvalidFormat' } });
      return parseUtc(ast.value);
    }),
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

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function parseUuid(value: unknown): string {
  if (typeof value !== 'string' || !UUID_RE.test(value))
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
  parseLiteral: (ast) =>
    atLiteral(ast, () => {
      if (ast.kind !== Kind.STRING)
        throw new GraphQLError('must be a string', { extensions: { code: 'InvalidFormat' } });
      return parseUuid(ast.value);
    }),
});
