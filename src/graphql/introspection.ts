// How large a document's introspection answer would be, counted against the schema itself before anything runs.
// Introspection is exempt from depth and cost (CONTRACT §13) and holds one `__schema` (§28), but aliases and
// nesting inside that one multiply its answer: 1,800 aliased `types { fields { name args { name } } }` in 63 KB
// answered 28 MB (+380 MB RSS, the event loop held for seconds), and `type { fields { type { fields … } } }` grows
// with each level. The answer may hold at most four times as many values as GraphiQL's full introspection query's,
// so that query (and any tool's reading the schema once) always passes.
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type GraphQLType,
  getIntrospectionQuery,
  isAbstractType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isType,
  Kind,
  parse,
  type SelectionSetNode,
} from 'graphql';

/** An introspection object: what each of its fields leads to (a list, one object, or a value). */
type Node = object;
type Step = Node[] | Node | null | undefined;

/** Where each introspection field leads from an object of this schema; undefined: a value (or unknown). */
function stepper(schema: GraphQLSchema) {
  const typeOf = (t: GraphQLType): Node => t;
  const onSchema: Record<string, () => Step> = {
    types: () => Object.values(schema.getTypeMap()),
    queryType: () => schema.getQueryType() ?? null,
    mutationType: () => schema.getMutationType() ?? null,
    subscriptionType: () => schema.getSubscriptionType() ?? null,
    directives: () => [...schema.getDirectives()],
  };
  const onType = (t: GraphQLType, field: string): Step => {
    const fielded = isObjectType(t) || isInterfaceType(t);
    if (field === 'fields') return fielded ? Object.values(t.getFields()) : null;
    if (field === 'interfaces') return fielded ? [...t.getInterfaces()] : null;
    if (field === 'possibleTypes') return isAbstractType(t) ? [...schema.getPossibleTypes(t)] : null;
    if (field === 'enumValues') return isEnumType(t) ? [...t.getValues()] : null;
    if (field === 'inputFields') return isInputObjectType(t) ? Object.values(t.getFields()) : null;
    if (field === 'ofType') return isListType(t) || isNonNullType(t) ? typeOf(t.ofType) : null;
    return undefined;
  };
  return (node: Node, field: string): Step => {
    if (node === schema) return onSchema[field]?.();
    if (isType(node)) return onType(node, field);
    // A field, an argument or input field, a directive, an enum value.
    if (field === 'args' && 'args' in node) return [...(node.args as readonly Node[])];
    if (field === 'type' && 'type' in node) return typeOf(node.type as GraphQLType);
    return undefined;
  };
}

const OVER = Symbol('over');

/** Values the introspection part of a document would answer, or Infinity once past `budget` (work stays within it). */
function count(schema: GraphQLSchema, document: DocumentNode, budget: number): number {
  const step = stepper(schema);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION && !fragments.has(d.name.value)) fragments.set(d.name.value, d);
  let spent = 0;
  const spend = (n: number) => {
    spent += n;
    if (spent > budget) throw OVER;
  };
  const known = new Map<string, WeakMap<Node, number>>();
  const visiting = new Set<string>();
  // Each call spends what it counts: every field at least 1, so the work never exceeds the budget by much.
  const below = (set: SelectionSetNode, node: Node): number => {
    let n = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        spend(1);
        n += 1;
        const next = step(node, sel.name.value);
        if (!sel.selectionSet || !next) continue;
        for (const item of Array.isArray(next) ? next : [next]) {
          spend(Array.isArray(next) ? 1 : 0);
          n += (Array.isArray(next) ? 1 : 0) + below(sel.selectionSet, item);
        }
      } else if (sel.kind === Kind.INLINE_FRAGMENT) n += below(sel.selectionSet, node);
      else {
        const name = sel.name.value;
        const fragment = fragments.get(name);
        if (!fragment || visiting.has(name)) continue;
        let memo = known.get(name);
        if (!memo) {
          memo = new WeakMap();
          known.set(name, memo);
        }
        const hit = memo.get(node);
        if (hit !== undefined) {
          spend(hit);
          n += hit;
          continue;
        }
        visiting.add(name);
        const s = below(fragment.selectionSet, node);
        visiting.delete(name);
        memo.set(node, s);
        n += s;
      }
    }
    return n;
  };
  // The root: `__schema` and `__type` fields, directly or through fragments (a cycle or unknown one counts nothing).
  const rooted = new Set<string>();
  const root = (set: SelectionSetNode): void => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.INLINE_FRAGMENT) root(sel.selectionSet);
      else if (sel.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(sel.name.value);
        if (!fragment || rooted.has(sel.name.value)) continue;
        rooted.add(sel.name.value);
        root(fragment.selectionSet);
        rooted.delete(sel.name.value);
      } else if (sel.name.value === '__schema' && sel.selectionSet) {
        spend(1);
        below(sel.selectionSet, schema);
      } else if (sel.name.value === '__type' && sel.selectionSet) {
        spend(1);
        const type = typeNamed(schema, sel.arguments?.find((a) => a.name.value === 'name')?.value);
        if (type) below(sel.selectionSet, type);
      }
    }
  };
  try {
    for (const d of document.definitions) if (d.kind === Kind.OPERATION_DEFINITION) root(d.selectionSet);
  } catch (e) {
    if (e === OVER) return Number.POSITIVE_INFINITY;
    throw e;
  }
  return spent;
}

/** The type a `__type(name:)` asks for; for a name not written out, the one with the most fields. */
function typeNamed(
  schema: GraphQLSchema,
  value: { kind: string; value?: unknown } | undefined,
): Node | undefined {
  if (value?.kind === Kind.STRING) return schema.getType(String(value.value));
  const types = Object.values(schema.getTypeMap());
  const size = (t: (typeof types)[number]) =>
    isObjectType(t) || isInterfaceType(t) ? Object.keys(t.getFields()).length : 0;
  return types.reduce((a, b) => (size(b) > size(a) ? b : a));
}

const FULL = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
  oneOf: true,
});
const budgets = new WeakMap<GraphQLSchema, number>();
const counted = new WeakMap<DocumentNode, number>();

/** The document's introspection answer in values (Infinity once past the most allowed), and the most allowed. */
export function introspectionSizeOf(
  schema: GraphQLSchema,
  document: DocumentNode,
): { size: number; max: number } {
  let max = budgets.get(schema);
  if (max === undefined) {
    max = 4 * count(schema, parse(FULL), Number.POSITIVE_INFINITY);
    budgets.set(schema, max);
  }
  let size = counted.get(document);
  if (size === undefined) {
    size = count(schema, document, max);
    counted.set(document, size);
  }
  return { size, max };
}
