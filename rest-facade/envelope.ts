// Shapes a GraphQL result into the REST envelope (CONTRACT §2, §3): `{"Car":{...}}`, or
// `{"Cars":[...],"Metadata":{...}}` with what the search applied; PascalCase at every depth, nulls omitted.
import type { SelectionSetNode } from 'graphql';
import type { Payload } from './formats/index.js';
import { pascal, toRest } from './names.js';
import { extraPageFields, type FieldSelection } from './selection.js';
import type { Route } from './table.js';

interface PageData {
  [applied: string]: unknown;
  total: number;
  limit: number;
  offset: number;
  sort: { by: string; direction: string };
  distinct: string | null;
  nodes: Record<string, unknown>[];
}

/** The CSV header: `Id` first, then the selected fields in schema order. */
export function columnsOf(selection: SelectionSetNode): string[] {
  const names = selection.selections.flatMap((s) => (s.kind === 'Field' ? [pascal(s.name.value)] : []));
  return ['Id', ...names.filter((n) => n !== 'Id')];
}

/** Whether an object has a key that is not a REST name yet: a JSON scalar's value (evidence), never aliased. */
function hasCamelKey(value: object): boolean {
  for (const k in value) {
    // `pascal(k) !== k`, without building a string per key: ASCII decides by its code, anything else as pascal.
    const c = k.charCodeAt(0);
    if ((c >= 97 && c <= 122) || (c > 127 && pascal(k) !== k)) return true;
  }
  return false;
}

/**
 * Nulls leave objects (the envelope omits them), arrays keep theirs, as JSON.stringify writes them; an object
 * that still has camelCase keys gets them renamed at every depth, as `toRest` would. Objects in `keepNulls` (a
 * page's Metadata) keep theirs.
 */
function omitNullsBut(keepNulls: ReadonlySet<object>) {
  return function omitNull(this: object, key: string, value: unknown): unknown {
    if (value === null) return key === '' || keepNulls.has(this) ? null : undefined;
    if (typeof value === 'object' && !Array.isArray(value) && hasCamelKey(value)) return toRest(value);
    return value;
  };
}
/** `value` and every object inside it. */
function objectsIn(value: object, into = new Set<object>()): Set<object> {
  into.add(value);
  for (const v of Object.values(value)) if (typeof v === 'object' && v !== null) objectsIn(v, into);
  return into;
}

function metadata(route: Route, page: PageData, fields: FieldSelection) {
  return {
    Total: page.total,
    Limit: page.limit,
    Offset: page.offset,
    Sort: { By: pascal(page.sort.by), Direction: page.sort.direction },
    Filter: { Fields: (fields ?? []).map(pascal) },
    // The one null the JSON keeps (CONTRACT §3).
    Distinct: page.distinct === null ? null : pascal(page.distinct),
    // Whatever else the search applied (a booking search's window), when it applied something.
    ...(toRest(Object.fromEntries(extraPageFields(route.shape.page!).map((f) => [f, page[f]]))) as object),
  };
}

/** How a node's result is written without a replacer: each field's key, and its own plan when it has a selection. */
type Plan = readonly { key: string; sub: Plan | undefined }[];
const plans = new WeakMap<SelectionSetNode, Plan | null>();

/**
 * The plan of a selection whose result keys are all REST names already (the facade aliases every field,
 * selection.ts); null for one that holds anything else (a fragment, a key `toRest` would rename), which is then
 * written through the replacer. Made once per selection: the document cache keeps a route's selections.
 */
function planOf(set: SelectionSetNode): Plan | null {
  const known = plans.get(set);
  if (known !== undefined) return known;
  const fields: { key: string; sub: Plan | undefined }[] = [];
  let plan: Plan | null = fields;
  for (const s of set.selections) {
    const key = s.kind === 'Field' ? (s.alias ?? s.name).value : undefined;
    const sub = s.kind === 'Field' && s.selectionSet ? planOf(s.selectionSet) : undefined;
    if (key === undefined || pascal(key) !== key || sub === null) {
      plan = null;
      break;
    }
    fields.push({ key, sub });
  }
  plans.set(set, plan);
  return plan;
}

/**
 * Readies an execution result of `plan` for a plain `JSON.stringify`, in place: a null field becomes undefined (left
 * out, as the envelope omits nulls; the object keeps its shape), and a JSON scalar's value is replaced by its REST
 * copy (`toRest`). The result's objects are this request's own (graphql-jit builds them for it); a JSON scalar's value
 * may not be, so it is copied, never changed.
 */
function omitNulls(node: Record<string, unknown>, plan: Plan): void {
  for (const { key, sub } of plan) {
    const v = node[key];
    if (v === null) node[key] = undefined;
    else if (typeof v !== 'object' || v === undefined) continue;
    else if (!sub) node[key] = toRest(v);
    else if (!Array.isArray(v)) omitNulls(v as Record<string, unknown>, sub);
    // A list keeps its nulls, as JSON.stringify writes them.
    else for (const item of v) if (item !== null) omitNulls(item as Record<string, unknown>, sub);
  }
}

/** The nodes (one, a list, or null) readied for `JSON.stringify`; false when their selection has no plan. */
function readied(data: unknown, nodes: SelectionSetNode): boolean {
  const plan = planOf(nodes);
  if (plan === null) return false;
  if (Array.isArray(data)) {
    for (const item of data) if (item !== null) omitNulls(item as Record<string, unknown>, plan);
  } else if (data !== null && typeof data === 'object') omitNulls(data as Record<string, unknown>, plan);
  return true;
}

/**
 * The JSON envelope in one pass, byte for byte what `JSON.stringify(envelope(…).envelope)` gives: the execution
 * result already has REST names (the facade aliases every field, selection.ts), so the nodes are written as they
 * are, without a PascalCase copy of a large page. Its nulls are taken out in place first (`omitNulls`), so the text
 * is one `JSON.stringify` without a replacer: a replacer function takes V8 off its fast path, and cost a 100-car
 * page twice the time of the plain call. `data` is changed: the caller reads it no more.
 */
export function jsonEnvelope(
  route: Route,
  data: unknown,
  fields: FieldSelection,
  nodes: SelectionSetNode,
): string {
  if (route.shape.kind === 'page') {
    const page = data as PageData;
    const meta = metadata(route, page, fields);
    // One JSON.stringify for the whole page: its text comes out flat, where joining the nodes' text with the
    // rest made a rope that hashing the ETag then copied whole (~180 KB for 100 cars, test/bench S1).
    const body = { [route.plural]: page.nodes, Metadata: meta };
    return readied(page.nodes, nodes)
      ? JSON.stringify(body)
      : JSON.stringify(body, omitNullsBut(objectsIn(meta)));
  }
  if (data === undefined) return '{}';
  if (route.def.lift && route.shape.kind === 'one') {
    const { node, lifted } = lift(route.def.lift, toRest(data) as Record<string, unknown>);
    const wrapped = { [route.rest]: node, ...lifted };
    return JSON.stringify(wrapped, omitNullsBut(new Set([wrapped])));
  }
  const wrapped = { [route.shape.kind === 'many' ? route.plural : route.rest]: data };
  return readied(data, nodes)
    ? JSON.stringify(wrapped)
    : JSON.stringify(wrapped, omitNullsBut(new Set([wrapped])));
}

/** A resource without the fields a route lifts out of it, and those fields beside it (nulls left out). */
function lift(
  fields: readonly string[],
  node: Record<string, unknown>,
): { node: Record<string, unknown>; lifted: Record<string, unknown> } {
  const rest = { ...node };
  const lifted: Record<string, unknown> = {};
  for (const f of fields.map(pascal)) {
    if (rest[f] !== undefined && rest[f] !== null) lifted[f] = rest[f];
    delete rest[f];
  }
  return { node: rest, lifted };
}

export function envelope(
  route: Route,
  data: unknown,
  nodeSelection: SelectionSetNode,
  fields: FieldSelection,
): Payload {
  const columns = columnsOf(nodeSelection);
  const base = {
    columns,
    fileName: route.plural.toLowerCase(),
    title: `${route.def.summary} — ${route.def.method} /api${route.def.path}`,
  };
  if (route.shape.kind === 'page') {
    const page = data as PageData;
    const nodes = page.nodes.map((n) => toRest(n) as Record<string, unknown>);
    return {
      ...base,
      envelope: { [route.plural]: nodes, Metadata: metadata(route, page, fields) },
      rows: nodes,
    };
  }
  if (route.shape.kind === 'many') {
    const nodes = (data as Record<string, unknown>[]).map((n) => toRest(n) as Record<string, unknown>);
    return { ...base, envelope: { [route.plural]: nodes }, rows: nodes };
  }
  const whole = toRest(data) as Record<string, unknown>;
  const { node, lifted } = lift(route.def.lift ?? [], whole);
  return { ...base, envelope: { [route.rest]: node, ...lifted }, rows: [node] };
}
