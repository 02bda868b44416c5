// Shapes a GraphQL result into the REST envelope (CONTRACT §2, §3): `{"Car":{...}}`, or
// `{"Cars":[...],"Metadata":{...}}` with what the search applied; PascalCase at every depth, nulls omitted.
import type { SelectionSetNode } from 'graphql';
import type { Payload } from './formats/index.js';
import { pascal, toRest } from './names.js';
import { extraPageFields } from './selection.js';
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

export function envelope(
  route: Route,
  data: unknown,
  nodeSelection: SelectionSetNode,
  filter: readonly string[] | null,
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
      envelope: {
        [route.plural]: nodes,
        Metadata: {
          Total: page.total,
          Limit: page.limit,
          Offset: page.offset,
          Sort: { By: pascal(page.sort.by), Direction: page.sort.direction },
          Filter: { Fields: (filter ?? []).map(pascal) },
          // The one null the JSON keeps (CONTRACT §3).
          Distinct: page.distinct === null ? null : pascal(page.distinct),
          // Whatever else the search applied (a booking search's window), when it applied something.
          ...(toRest(
            Object.fromEntries(extraPageFields(route.shape.page!).map((f) => [f, page[f]])),
          ) as object),
        },
      },
      rows: nodes,
    };
  }
  if (route.shape.kind === 'many') {
    const nodes = (data as Record<string, unknown>[]).map((n) => toRest(n) as Record<string, unknown>);
    return { ...base, envelope: { [route.plural]: nodes }, rows: nodes };
  }
  const node = toRest(data) as Record<string, unknown>;
  return { ...base, envelope: { [route.rest]: node }, rows: [node] };
}
