// The JSON envelope written without a replacer (envelope.ts, `jsonEnvelope`): for every read route's selection, with
// nulls at every depth, lists holding nulls and a JSON scalar's value shared with something else, its text is
// byte for byte the PascalCase envelope built the long way, and the shared value is left as it was.
import { type FieldNode, Kind, parse, type SelectionSetNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { envelope, jsonEnvelope } from '../../rest-facade/envelope.js';
import { routeModules } from '../../rest-facade/routes/index.js';
import { nodeSelection } from '../../rest-facade/selection.js';
import { RouteTable } from '../../rest-facade/table.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { modules } from '../../src/modules.js';

const table = new RouteTable(buildSchema(modules), routeModules);
type R = Record<string, unknown>;

/** A JSON scalar's value as a loader might hold it: camelCase keys and a null, inside and out. */
const evidence = () => ({
  certificateNumber: 'RW-1',
  note: null,
  issuedBy: { officeName: 'DMV', desk: null },
});

/**
 * A result shaped by `set`, as graphql-jit builds one: every other leaf null, every sub-selection a list of a
 * node and a null (a single object one level down), and `Evidence` (the JSON scalar) the `shared` value.
 */
function resultOf(set: SelectionSetNode, shared: object, depth = 0): R {
  const out: R = {};
  set.selections.forEach((s, i) => {
    const f = s as FieldNode;
    const key = (f.alias ?? f.name).value;
    if (key === 'Evidence') out[key] = shared;
    else if (f.selectionSet)
      out[key] =
        depth === 0 ? [resultOf(f.selectionSet, shared, 1), null] : resultOf(f.selectionSet, shared, 2);
    else out[key] = i % 2 ? null : `${key}-${depth}`;
  });
  return out;
}

const routeOf = (path: string) => {
  const match = table.match('GET', path);
  if (!match || !('route' in match)) throw new Error(`no GET route for ${path}`);
  return match.route;
};

const page = (nodes: R[]) => ({
  total: 2,
  limit: 100,
  offset: 0,
  sort: { by: 'createdDateUtc', direction: 'Desc' },
  distinct: null,
  nodes,
});

describe('jsonEnvelope', () => {
  it.each(['/cars', '/cars/c1', '/bookings', '/useraccounts/u1', '/verifications'])(
    'writes %s as the long way does, leaving a shared JSON value unchanged',
    (path) => {
      const route = routeOf(path);
      const nodes = nodeSelection(route.shape.node, { mode: 'all', pairs: new Set() }, null);
      const shared = evidence();
      const data = () => {
        const node = resultOf(nodes, shared);
        return route.shape.kind === 'page' ? page([node, resultOf(nodes, shared)]) : node;
      };
      const slow = JSON.stringify(envelope(route, data(), nodes, null).envelope);
      const fast = jsonEnvelope(route, data(), null, nodes);
      expect(fast).toBe(slow);
      expect(fast).not.toContain(':null,');
      expect(shared).toEqual(evidence());
    },
  );

  it('keeps the car’s evidence renamed at every depth, its nulls left out', () => {
    const route = routeOf('/cars/c1');
    const nodes = nodeSelection(route.shape.node, { mode: 'all', pairs: new Set() }, null);
    const body = JSON.parse(jsonEnvelope(route, resultOf(nodes, evidence()), null, nodes)) as {
      Car: { Verifications: ({ Evidence?: unknown } | null)[] };
    };
    expect(body.Car.Verifications).toHaveLength(2);
    expect(body.Car.Verifications[0]!.Evidence).toEqual({
      CertificateNumber: 'RW-1',
      IssuedBy: { OfficeName: 'DMV' },
    });
    expect(body.Car.Verifications[1]).toBeNull();
  });

  it('writes a selection it has no plan for (a fragment, a key that is no REST name) through the replacer', () => {
    const route = routeOf('/cars/c1');
    const doc = parse('{ car { Id: id ...F make } } fragment F on Car { Model: model }');
    const car = doc.definitions[0];
    if (car?.kind !== Kind.OPERATION_DEFINITION) throw new Error('no operation');
    const nodes = (car.selectionSet.selections[0] as FieldNode).selectionSet!;
    const data = () => ({ Id: 'c1', Model: null, make: 'Ford', note: { b: null } });
    expect(jsonEnvelope(route, data(), null, nodes)).toBe(
      JSON.stringify(envelope(route, data(), nodes, null).envelope),
    );
    expect(jsonEnvelope(route, data(), null, nodes)).toBe('{"Car":{"Id":"c1","Make":"Ford","Note":{}}}');
  });
});
