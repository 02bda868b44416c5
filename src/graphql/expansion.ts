// A document's size once its fragments are expanded (CONTRACT §28): every field selection counted each time a
// spread brings it, and the introspection root fields it asks for. It runs before validation, so in time linear in
// the document whatever its fragments: each fragment is counted once and its count reused (a chain of fragments
// that each spread the one before twice doubles its size per level, and graphql-jit's compile time with it).
import { type DocumentNode, type FragmentDefinitionNode, Kind, type SelectionSetNode } from 'graphql';

export interface Expansion {
  /** Field selections in all of the document's operations, every spread expanded (saturates, never Infinity). */
  selections: number;
  /** `__schema` root fields, aliases and spreads included. */
  schemas: number;
  /** `__type` root fields, aliases and spreads included. */
  types: number;
}

/** Counts stop growing here: a thousand doubling levels fit in 64 KiB, and 2^1000 must still compare. */
const CAP = Number.MAX_SAFE_INTEGER;
const add = (a: number, b: number): number => Math.min(CAP, a + b);

interface Roots {
  schemas: number;
  types: number;
}

/** The same DocumentNode (a parse cache's, the REST facade's) is counted once. */
const counted = new WeakMap<DocumentNode, Expansion>();

export function expansionOf(document: DocumentNode): Expansion {
  const known = counted.get(document);
  if (known) return known;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION && !fragments.has(d.name.value)) fragments.set(d.name.value, d);

  // A spread of an unknown fragment, or one that reaches itself, counts nothing: validation refuses the document.
  const sizes = new Map<string, number>();
  const sizing = new Set<string>();
  const size = (set: SelectionSetNode): number => {
    let n = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) n = add(n, 1 + (sel.selectionSet ? size(sel.selectionSet) : 0));
      else if (sel.kind === Kind.INLINE_FRAGMENT) n = add(n, size(sel.selectionSet));
      else {
        const name = sel.name.value;
        const fragment = fragments.get(name);
        if (!fragment || sizing.has(name)) continue;
        let s = sizes.get(name);
        if (s === undefined) {
          sizing.add(name);
          s = size(fragment.selectionSet);
          sizing.delete(name);
          sizes.set(name, s);
        }
        n = add(n, s);
      }
    }
    return n;
  };

  // Root fields: those of the operation's own selection set and of the fragments spread directly into it.
  const rootsOf = new Map<string, Roots>();
  const rooting = new Set<string>();
  const roots = (set: SelectionSetNode): Roots => {
    const r: Roots = { schemas: 0, types: 0 };
    const take = (o: Roots) => {
      r.schemas = add(r.schemas, o.schemas);
      r.types = add(r.types, o.types);
    };
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        if (sel.name.value === '__schema') r.schemas = add(r.schemas, 1);
        else if (sel.name.value === '__type') r.types = add(r.types, 1);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) take(roots(sel.selectionSet));
      else {
        const name = sel.name.value;
        const fragment = fragments.get(name);
        if (!fragment || rooting.has(name)) continue;
        let o = rootsOf.get(name);
        if (o === undefined) {
          rooting.add(name);
          o = roots(fragment.selectionSet);
          rooting.delete(name);
          rootsOf.set(name, o);
        }
        take(o);
      }
    }
    return r;
  };

  const total: Expansion = { selections: 0, schemas: 0, types: 0 };
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    total.selections = add(total.selections, size(d.selectionSet));
    const r = roots(d.selectionSet);
    total.schemas = add(total.schemas, r.schemas);
    total.types = add(total.types, r.types);
  }
  counted.set(document, total);
  return total;
}
