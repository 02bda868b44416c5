// Finds which argument a literal in a GraphQL document belongs to, for errors raised before execution.
import { type ASTNode, parse, type Source, visit } from 'graphql';

export interface ArgumentLocation {
  /** The argument path: `id`, `input.seats`. */
  field: string;
  /** The response path of the field that takes it: `["car"]`, `["a", "owner"]` with aliases. */
  path: string[];
}

const valueKinds = new Set([
  'Variable',
  'IntValue',
  'FloatValue',
  'StringValue',
  'BooleanValue',
  'NullValue',
  'EnumValue',
  'ListValue',
  'ObjectValue',
]);

/**
 * The argument whose value starts at `position` in `source`. GraphQL's validation errors point at the value
 * only; walking the document again gives its argument and field, which a caller needs to fix the query.
 */
export function argumentAt(
  source: Source | undefined,
  position: number | undefined,
): ArgumentLocation | undefined {
  if (!source || position === undefined) return undefined;
  let doc: ReturnType<typeof parse>;
  try {
    doc = parse(source);
  } catch {
    return undefined;
  }
  const path: string[] = [];
  const arg: string[] = [];
  let found: ArgumentLocation | undefined;
  visit(doc, {
    Field: {
      enter: (n) => void path.push(n.alias?.value ?? n.name.value),
      leave: () => void path.pop(),
    },
    Argument: { enter: (n) => void arg.push(n.name.value), leave: () => void arg.pop() },
    ObjectField: { enter: (n) => void arg.push(n.name.value), leave: () => void arg.pop() },
    enter(n: ASTNode) {
      if (!found && arg.length > 0 && valueKinds.has(n.kind) && n.loc?.start === position)
        found = { field: arg.join('.'), path: [...path] };
    },
  });
  return found;
}
