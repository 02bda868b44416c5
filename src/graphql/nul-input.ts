// U+0000 in any GraphQL string input (a literal or a variable, at any depth) is refused before execution as
// `InvalidValue` naming the argument (CONTRACT §13): PostgreSQL cannot store it in text or JSON.
import { type DocumentNode, GraphQLError, visit } from 'graphql';

const MESSAGE = 'must not contain NUL characters';

function inValue(v: unknown, path: string): string | undefined {
  if (typeof v === 'string') return v.includes('\0') ? path : undefined;
  if (Array.isArray(v)) return v.map((x) => inValue(x, path)).find((p) => p !== undefined);
  if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      const found = k.includes('\0') ? path : inValue(x, path ? `${path}.${k}` : k);
      if (found !== undefined) return found;
    }
  return undefined;
}

/** The argument path of the first string literal holding a NUL (`input.make`), if any. */
function inLiterals(document: DocumentNode): string | undefined {
  const path: string[] = [];
  let found: string | undefined;
  visit(document, {
    Argument: { enter: (n) => void path.push(n.name.value), leave: () => void path.pop() },
    ObjectField: { enter: (n) => void path.push(n.name.value), leave: () => void path.pop() },
    StringValue(n) {
      if (found === undefined && n.value.includes('\0')) found = path.join('.') || 'query';
    },
  });
  return found;
}

export function nulRefusal(
  document: DocumentNode,
  variables?: Readonly<Record<string, unknown>> | null,
): GraphQLError | undefined {
  const field = inLiterals(document) ?? (variables ? inValue(variables, '') : undefined);
  if (field === undefined) return undefined;
  const message = `${field} ${MESSAGE}`;
  return new GraphQLError(message, {
    extensions: {
      code: 'InvalidValue',
      field,
      errors: [{ code: 'InvalidValue', field, message }],
      http: { status: 400 },
    },
  });
}
