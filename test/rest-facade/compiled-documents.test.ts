// The facade's documents run compiled (graphql-jit) and are written to JSON in one pass: for each read route, with
// every embed, the compiled result must equal graphql-js's byte for byte, and the one-pass JSON envelope must equal
// the PascalCase envelope built the long way (evidence objects of a JSON scalar included).
import { randomUUID } from 'node:crypto';
import { execute } from 'graphql';
import { pino } from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { DocumentCache } from '../../rest-facade/document.js';
import { envelope, jsonEnvelope } from '../../rest-facade/envelope.js';
import { routeModules } from '../../rest-facade/routes/index.js';
import { nodeSelection, pageSelection } from '../../rest-facade/selection.js';
import { RouteTable } from '../../rest-facade/table.js';
import { CompiledDocuments } from '../../src/graphql/compiled.js';
import { createContext } from '../../src/graphql/context.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { modules } from '../../src/modules.js';
import { bookingIn, world } from '../factories/bookings.js';
import { bookingFacts, leaveFeedback } from '../factories/feedback.js';
import { asOps } from '../support/actors.js';
import { useHarness } from '../support/harness.js';
import { scoped } from '../support/scope.js';

const h = useHarness({ resetEach: false });
const schema = buildSchema(modules);
const table = new RouteTable(schema, routeModules);
const documents = new DocumentCache(schema);
const compiled = new CompiledDocuments(schema);
const ids: Record<string, string> = {};

beforeAll(async () => {
  const w = await world(h);
  const b = await bookingIn(h, w, 'Approved');
  await leaveFeedback(h, w.borrower.actor, bookingFacts(w.borrower.id, w.owner.id, { carId: w.carId }), {
    rating: 5,
  });
  // Evidence is a JSON scalar: its camelCase keys (and nulls) are only renamed by the envelope, never aliased.
  await h.orm.em
    .fork()
    .getConnection()
    .execute(
      `update verification set evidence = '{"certificateNumber":"RW-1","note":null,"issuedBy":{"officeName":"DMV"}}'
        where subject_id = ?`,
      [w.carId],
    );
  Object.assign(ids, { car: w.carId, booking: b.id, owner: w.owner.id });
});

type R = Record<string, any>;
const log = pino({ level: 'silent' });
const context = () =>
  createContext({
    em: scoped(h.orm),
    carShare: h.carShare,
    actor: asOps(),
    clock: h.clock,
    requestId: randomUUID(),
    log,
  });

const paths = () => [
  '/cars',
  `/cars/${ids.car}`,
  `/cars/${ids.car}/bookings`,
  '/bookings',
  `/bookings/${ids.booking}`,
  '/useraccounts',
  `/useraccounts/${ids.owner}`,
  '/verifications',
  '/feedbacks',
];

describe('compiled facade documents', () => {
  it('give graphql-js’s result and, in one pass, the envelope’s exact JSON, on every read route', async () => {
    const bodies = new Map<string, string>();
    for (const path of paths()) {
      const match = table.match('GET', path);
      if (!match || !('route' in match)) throw new Error(`no GET route for ${path}`);
      const { route, params } = match;
      const variables: Record<string, unknown> = {};
      for (const [arg, param] of route.pathArgs) variables[arg] = params.get(param);
      if (route.shape.kind === 'page') variables.limit = 100;
      const nodes = nodeSelection(route.shape.node, { mode: 'all', pairs: new Set() }, null);
      const document = documents.get({
        operation: route.operation,
        field: route.field.name,
        args: route.field.args.filter((a) => Object.hasOwn(variables, a.name)),
        selection: route.shape.page ? pageSelection(route.shape.page, nodes) : nodes,
      });

      const js = await execute({ schema, document, variableValues: variables, contextValue: context() });
      const jit = await compiled.run(document, variables, context());
      expect({ path, errors: js.errors }).toEqual({ path, errors: undefined });
      expect({ path, jit: JSON.stringify(jit) }).toEqual({ path, jit: JSON.stringify(js) });

      const data = js.data?.[route.field.name];
      const slow = JSON.stringify(envelope(route, data, nodes, null).envelope);
      expect({ path, json: jsonEnvelope(route, jit?.data?.[route.field.name], null, nodes) }).toEqual({
        path,
        json: slow,
      });
      expect(slow.length).toBeGreaterThan(20);
      bodies.set(path, slow);
    }
    // The evidence was written with REST names at every depth, its null left out.
    const evidence = (JSON.parse(bodies.get(`/cars/${ids.car}`)!) as R).Car.Verifications.map(
      (v: R) => v.Evidence,
    );
    expect(evidence).toContainEqual({ CertificateNumber: 'RW-1', IssuedBy: { OfficeName: 'DMV' } });
  });
});
