// What the facade reads from the executable schema: resources (object types with an `id`), their plain
// fields, their embedded children (fields holding other resources), pages, and REST names.
import {
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import { pascal } from './names.js';
import type { ResourceName } from './route.types.js';

export type AnyField = GraphQLField<unknown, unknown>;

export const isResource = (t: GraphQLNamedType): t is GraphQLObjectType =>
  isObjectType(t) && Object.hasOwn(t.getFields(), 'id');

/** A page type: `{ total limit offset sort distinct nodes }`. */
export const isPage = (t: GraphQLNamedType): t is GraphQLObjectType =>
  isObjectType(t) && Object.hasOwn(t.getFields(), 'nodes') && Object.hasOwn(t.getFields(), 'total');

/** A field a REST client can select: no required arguments. */
const selectable = (f: AnyField): boolean => f.args.every((a) => !isNonNullType(a.type));

/** Plain fields (scalars, enums, value objects like Money) and embeds (fields holding resources). */
export function fieldsOf(t: GraphQLObjectType): { plain: AnyField[]; embeds: AnyField[] } {
  const plain: AnyField[] = [];
  const embeds: AnyField[] = [];
  for (const f of Object.values(t.getFields())) {
    if (!selectable(f) || f.name.startsWith('_')) continue;
    const named = getNamedType(f.type);
    if (isResource(named)) embeds.push(f);
    else plain.push(f);
  }
  return { plain, embeds };
}

export const isListOutput = (t: GraphQLOutputType): boolean => isListType(isNonNullType(t) ? t.ofType : t);

export type ResultKind = 'page' | 'one' | 'many' | 'deleted';

export interface ResultShape {
  kind: ResultKind;
  /** The resource type of each returned node. */
  node: GraphQLObjectType;
  /** The page type of a search. */
  page?: GraphQLObjectType;
}

/** How an operation's result looks: a page of nodes, one resource, several, or a deletion's `{ id }`. */
export function resultShape(field: AnyField): ResultShape {
  const named = getNamedType(field.type);
  if (!isObjectType(named)) throw new Error(`${field.name} does not return an object type`);
  if (isPage(named)) {
    const nodes = getNamedType(named.getFields().nodes!.type);
    if (!isResource(nodes)) throw new Error(`${named.name}.nodes does not hold resources`);
    return { kind: 'page', node: nodes, page: named };
  }
  if (!isResource(named)) throw new Error(`${field.name} does not return a resource`);
  if ((named as GraphQLObjectType).name === 'Deleted') return { kind: 'deleted', node: named };
  return { kind: isListOutput(field.type) ? 'many' : 'one', node: named };
}

/** REST names of GraphQL types: the type's own name unless a route module renames it. */
export class Names {
  readonly #rest = new Map<string, string>();
  readonly #type = new Map<string, string>();
  constructor(renames: readonly ResourceName[]) {
    for (const r of renames) {
      this.#rest.set(r.type, r.rest);
      this.#type.set(r.rest.toLowerCase(), r.type);
    }
  }
  rest(typeName: string): string {
    return this.#rest.get(typeName) ?? pascal(typeName);
  }
  /** The GraphQL type named by a REST name, any case (`booking` → `CarBooking`). */
  typeOf(schema: GraphQLSchema, restName: string): GraphQLObjectType | undefined {
    // A type of that very name comes first: a result type shown under another's REST name (`CreatedCarShare` as
    // `CarShare`) does not take the name from the type itself.
    for (const t of Object.values(schema.getTypeMap()))
      if (isResource(t) && t.name.toLowerCase() === restName.toLowerCase() && !this.#rest.has(t.name))
        return t;
    const renamed = this.#type.get(restName.toLowerCase());
    if (renamed) {
      const t = schema.getType(renamed);
      return t && isResource(t) ? t : undefined;
    }
    return undefined;
  }
}

/** Every resource type reachable from a type through its embeds (the type itself included). */
export function reachable(t: GraphQLObjectType, seen: Set<string> = new Set()): Set<string> {
  if (seen.has(t.name)) return seen;
  seen.add(t.name);
  for (const e of fieldsOf(t).embeds) reachable(getNamedType(e.type) as GraphQLObjectType, seen);
  return seen;
}
