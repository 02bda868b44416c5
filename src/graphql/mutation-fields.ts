// The mutation root fields an operation will run, found through fragments: what the rate limits count (CONTRACT
// §28, one unit per field) and what the REST cache is told changed (rest-facade/invalidation.ts).
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  getOperationAST,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/**
 * The root field names of the document's mutation (the one `operationName` selects, or its only operation), one
 * per response key: that is once per execution, since GraphQL merges root fields of the same key (the same field
 * spread twice) into one. Empty for a query, a subscription, or when no operation can be chosen.
 *
 * Fragment spreads and inline fragments are expanded, each named fragment once (a fragment brings the same root
 * fields however often it is spread), so the walk is linear in the document's size even for a document that
 * validation will refuse (a fragment cycle). Directives (`@skip`) are not evaluated: a field skipped still counts.
 */
export function mutationRootFields(document: DocumentNode, operationName?: string | null): string[] {
  const operation = getOperationAST(document, operationName);
  return operation?.operation === 'mutation' ? rootFieldsOf(document, operation) : [];
}

function rootFieldsOf(document: DocumentNode, operation: OperationDefinitionNode): string[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const expanded = new Set<string>();
  const byKey = new Map<string, string>();
  const walk = (set: SelectionSetNode): void => {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        if (s.name.value !== '__typename') byKey.set(s.alias?.value ?? s.name.value, s.name.value);
      } else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet);
      else {
        const fragment = fragments.get(s.name.value);
        if (!fragment || expanded.has(s.name.value)) continue;
        expanded.add(s.name.value);
        walk(fragment.selectionSet);
      }
    }
  };
  walk(operation.selectionSet);
  return [...byKey.values()];
}
