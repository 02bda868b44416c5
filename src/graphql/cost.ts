// A document's depth and cost (CONTRACT §13), computed before anything runs: depth is the longest chain of
// nested selection sets (the operation's own is 1); cost is the number of objects the document could return.
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../shared/pagination.js';

/** A list field without a `limit` argument is counted as this many objects. */
export const UNLIMITED_LIST_FACTOR = 10;
/** Introspection is exempt: GraphiQL must always be able to read the schema. */
const EXEMPT = new Set(['__schema', '__type']);

export interface Complexity {
  depth: number;
  cost: number;
}

type Parent = Parameters<typeof isCompositeType>[0];

/** Depth and cost of the operation a request would run; `undefined` when there is no such operation. */
export function complexityOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
  variables?: Readonly<Record<string, unknown>> | null,
): Complexity | undefined {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const operation = operationName
    ? operations.find((o) => o.name?.value === operationName)
    : operations.length === 1
      ? operations[0]
      : undefined;
  if (!operation) return undefined;
  const root = schema.getRootType(operation.operation);
  if (!root) return undefined;
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((f) => [f.name.value, f]),
  );
  const declared = new Map(
    (operation.variableDefinitions ?? []).map((v) => [v.variable.name.value, v.defaultValue]),
  );

  /** The `limit` this field asks for: its literal, its variable, or the default page size. */
  const limitOf = (node: FieldNode): number => {
    const arg = node.arguments?.find((a) => a.name.value === 'limit');
    const value = arg ? numberIn(arg.value) : undefined;
    const n = typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : DEFAULT_LIMIT;
    // A page never holds more than MAX_LIMIT: a larger limit is refused by the field itself (OutOfRange naming
    // it), so it could return no more objects than that.
    return Math.min(MAX_LIMIT, Math.max(1, n));
  };
  const numberIn = (v: ValueNode): unknown => {
    if (v.kind === Kind.INT || v.kind === Kind.FLOAT) return Number(v.value);
    if (v.kind !== Kind.VARIABLE) return undefined;
    const given = variables?.[v.name.value];
    if (given !== undefined && given !== null) return typeof given === 'string' ? Number(given) : given;
    const fallback = declared.get(v.name.value);
    return fallback ? numberIn(fallback) : undefined;
  };

  // Fragments are costed once per parent type and reused: cost is linear in the multiplier, so a fragment's
  // cost at multiplier 1 times the multiplier is its cost anywhere, and spreads that nest cannot explode.
  const memo = new Map<string, Complexity>();
  const visiting = new Set<string>();

  const selectionSet = (set: SelectionSetNode, parent: Parent, inPage: boolean): Complexity => {
    let depth = 0;
    let cost = 0;
    for (const sel of set.selections) {
      let part: Complexity = { depth: 0, cost: 0 };
      if (sel.kind === Kind.FIELD) part = field(sel, parent, inPage);
      else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const on = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : parent;
        part = selectionSet(sel.selectionSet, (on as Parent) ?? parent, inPage);
      } else {
        const name = sel.name.value;
        const fragment = fragments.get(name);
        const key = `${name}:${inPage}`;
        if (!fragment || visiting.has(key)) continue;
        const known = memo.get(key);
        if (known) part = known;
        else {
          visiting.add(key);
          const on = schema.getType(fragment.typeCondition.name.value) as Parent;
          part = selectionSet(fragment.selectionSet, on ?? parent, inPage);
          visiting.delete(key);
          memo.set(key, part);
        }
      }
      depth = Math.max(depth, part.depth);
      cost += part.cost;
    }
    return { depth, cost };
  };

  const field = (node: FieldNode, parent: Parent, inPage: boolean): Complexity => {
    if (EXEMPT.has(node.name.value) || !node.selectionSet) return { depth: 0, cost: 0 };
    const def = fieldOf(parent, node.name.value);
    const type = def ? getNamedType(def.type) : undefined;
    const inner = node.selectionSet;
    const limited = def?.args.some((a) => a.name === 'limit') === true;
    const isList = def ? isListType(getNullableType(def.type)) : false;
    // A page's own `nodes` are the objects its `limit` already counted.
    const pageNodes = inPage && isList && node.name.value === 'nodes';
    const factor = limited ? limitOf(node) : pageNodes ? 0 : isList ? UNLIMITED_LIST_FACTOR : 1;
    const below = selectionSet(inner, (type && isCompositeType(type) ? type : parent) as Parent, limited);
    return {
      depth: below.depth + 1,
      cost: factor === 0 ? below.cost : factor + factor * below.cost,
    };
  };

  const top = selectionSet(operation.selectionSet, root, false);
  return { depth: top.depth + 1, cost: top.cost };
}

/** A union has no fields of its own (only `__typename`): its members are reached through fragments. */
function fieldOf(parent: Parent, name: string): GraphQLField<unknown, unknown> | undefined {
  return isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
}
