// `filter` (a field selection) and `embed` turned into a GraphQL selection set, from field names validated against
// the schema.
import {
  type FieldNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  isObjectType,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import { fieldError, fieldErrors } from './errors.js';
import { nameKey, pascal } from './names.js';
import { fieldsOf, type Names } from './schema.model.js';

/** `all`: every embedded descendant; `some`: only the listed (type, child) pairs; `none`: no embeds. */
export interface EmbedSpec {
  mode: 'all' | 'some' | 'none';
  /** `TypeName.fieldName` pairs, for `some`. */
  pairs: ReadonlySet<string>;
}

/**
 * The top-level resource's fields a client chose with the `filter` parameter (CONTRACT §3), by canonical name,
 * `id` implied; null when it chose none and every field comes back. The public name says `filter`, but it picks
 * fields, never rows (which rows come back is a search's arguments' job).
 */
export type FieldSelection = readonly string[] | null;

/** Embedded descendants are followed this deep at most; the resource graph has no longer paths. */
const MAX_DEPTH = 4;

const fieldNode = (name: string, selectionSet?: SelectionSetNode): FieldNode => ({
  kind: Kind.FIELD,
  name: { kind: Kind.NAME, value: name },
  ...(selectionSet ? { selectionSet } : {}),
});

/**
 * A resource's field, aliased to its REST name (`make` as `Make`): the execution result then has the envelope's
 * keys already, and a JSON answer is written straight from it in one pass (envelope.ts).
 */
const restField = (name: string, selectionSet?: SelectionSetNode): FieldNode => {
  const alias = pascal(name);
  return {
    ...fieldNode(name, selectionSet),
    ...(alias !== name ? { alias: { kind: Kind.NAME, value: alias } } : {}),
  };
};

export const selectionSet = (fields: FieldNode[]): SelectionSetNode => ({
  kind: Kind.SELECTION_SET,
  selections: fields,
});

/** A value object (Money, LicensePlate) is always selected whole. */
function valueSelection(t: GraphQLObjectType): SelectionSetNode {
  return selectionSet(
    fieldsOf(t).plain.map((f) => {
      const named = getNamedType(f.type);
      return isObjectType(named) ? restField(f.name, valueSelection(named)) : restField(f.name);
    }),
  );
}

function embedded(t: GraphQLObjectType, field: string, embed: EmbedSpec): boolean {
  if (embed.mode === 'all') return true;
  return embed.mode === 'some' && embed.pairs.has(`${t.name}.${field}`);
}

export function nodeSelection(
  t: GraphQLObjectType,
  embed: EmbedSpec,
  fields: FieldSelection = null,
  depth = 0,
): SelectionSetNode {
  const { plain, embeds } = fieldsOf(t);
  const wanted = (name: string): boolean => fields === null || name === 'id' || fields.includes(name);
  const out: FieldNode[] = [];
  for (const f of plain) {
    if (!wanted(f.name)) continue;
    const named = getNamedType(f.type);
    out.push(isObjectType(named) ? restField(f.name, valueSelection(named)) : restField(f.name));
  }
  for (const f of embeds) {
    const listed = fields?.includes(f.name) ?? false;
    if (!listed && (fields !== null || !embedded(t, f.name, embed) || depth >= MAX_DEPTH)) continue;
    const child = getNamedType(f.type) as GraphQLObjectType;
    out.push(restField(f.name, nodeSelection(child, embed, null, depth + 1)));
  }
  return selectionSet(out);
}

const PAGE_FIELDS = ['total', 'limit', 'offset', 'sort', 'distinct', 'nodes'];

/** What a page type applied besides the standard fields (a booking search's `fromUtc`, `toUtc`). */
export const extraPageFields = (page: GraphQLObjectType): string[] =>
  fieldsOf(page)
    .plain.filter((f) => !PAGE_FIELDS.includes(f.name) && !isObjectType(getNamedType(f.type)))
    .map((f) => f.name);

/** The page wrapper around the nodes, so Metadata needs no second query. */
export function pageSelection(page: GraphQLObjectType, nodes: SelectionSetNode): SelectionSetNode {
  return selectionSet([
    fieldNode('total'),
    fieldNode('limit'),
    fieldNode('offset'),
    fieldNode('sort', selectionSet([fieldNode('by'), fieldNode('direction')])),
    fieldNode('distinct'),
    fieldNode('nodes', nodes),
    ...extraPageFields(page).map((f) => fieldNode(f)),
  ]);
}

const list = (raw: string): string[] =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** `filter=make,Model` → the field selection, by canonical name; an unknown field is 400 naming `Filter`. */
/**
 * The field selection's text: `filter`, or `fields`, AutoQuery's name for the same thing. Both at once is ambiguous,
 * so it is refused naming `Fields`, the alias.
 */
export function fieldSelectionText(control: (name: string) => string | undefined): {
  raw: string | undefined;
  name: 'Filter' | 'Fields';
} {
  const filter = control('filter');
  const fields = control('fields');
  if (filter !== undefined && fields !== undefined)
    throw fieldErrors([
      fieldError('InvalidValue', 'Fields', 'Fields is another name for Filter: send one of them, not both'),
    ]);
  return fields !== undefined ? { raw: fields, name: 'Fields' } : { raw: filter, name: 'Filter' };
}

export function parseFieldSelection(
  raw: string | undefined,
  t: GraphQLObjectType,
  name: 'Filter' | 'Fields' = 'Filter',
): FieldSelection {
  if (raw === undefined || raw.trim() === '') return null;
  const { plain, embeds } = fieldsOf(t);
  const names = [...plain, ...embeds].map((f) => f.name);
  const out: string[] = [];
  for (const item of list(raw)) {
    const match = names.find((n) => nameKey(n) === nameKey(item));
    if (!match)
      throw fieldErrors([
        fieldError('InvalidValue', name, `${name}: ${item} is not a field of ${t.name}`, {
          Allowed: names.map(pascal),
        }),
      ]);
    if (!out.includes(match) && match !== 'id') out.push(match);
  }
  return out;
}

/**
 * `embed=none|all|*|car.rating,car.verifications` (REST name and child, any case). A bare child name is
 * read as a child of the top-level resource. Single GETs embed everything by default, lists nothing.
 */
export function parseEmbed(
  raw: string | undefined,
  schema: GraphQLSchema,
  names: Names,
  top: GraphQLObjectType,
  single: boolean,
): EmbedSpec {
  const value = raw?.trim() ?? '';
  if (value === '') return { mode: single ? 'all' : 'none', pairs: new Set() };
  if (/^none$/i.test(value)) return { mode: 'none', pairs: new Set() };
  if (value === '*' || /^all$/i.test(value)) return { mode: 'all', pairs: new Set() };
  const pairs = new Set<string>();
  for (const item of list(value)) {
    const dot = item.lastIndexOf('.');
    const parent = dot < 0 ? top : names.typeOf(schema, item.slice(0, dot));
    const childName = dot < 0 ? item : item.slice(dot + 1);
    const child = parent && fieldsOf(parent).embeds.find((f) => nameKey(f.name) === nameKey(childName));
    if (!parent || !child)
      throw fieldErrors([fieldError('InvalidValue', 'Embed', `Embed: ${item} is not an embedded resource`)]);
    pairs.add(`${parent.name}.${child.name}`);
  }
  return { mode: 'some', pairs };
}
