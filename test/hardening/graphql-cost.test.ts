// CONTRACT §13 GraphQL cost: the limits refuse what they must (over HTTP and graphql-ws, nothing executed),
// introspection is exempt, and every document the REST facade can send fits the defaults.
import { parse } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { DocumentCache } from '../../rest-facade/document.js';
import { routeModules } from '../../rest-facade/routes/index.js';
import { nodeSelection, pageSelection, parseEmbed } from '../../rest-facade/selection.js';
import { RouteTable } from '../../rest-facade/table.js';
import { MAX_COMPILED_SELECTIONS } from '../../src/graphql/compiled.js';
import { complexityOf } from '../../src/graphql/cost.js';
import { expansionOf } from '../../src/graphql/expansion.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { modules } from '../../src/modules.js';
import { createUser } from '../factories/accounts.js';
import { createCar } from '../factories/cars.js';
import { useRest } from '../rest-facade/support.js';
import { asOps } from '../support/actors.js';
import { wsClient } from '../support/ws.js';

const schema = buildSchema(modules);
const env = useRest();
let ops: string;
beforeAll(async () => {
  ops = env.tokenFor(asOps());
});

const gql = (query: string, variables?: Record<string, unknown>) =>
  env.call('POST', '/graphql', { token: ops, body: { query, ...(variables ? { variables } : {}) } });

const aliases = (n: number, field: string) =>
  `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ')} }`;

describe('counting', () => {
  const cost = (q: string, v?: Record<string, unknown>) => complexityOf(schema, parse(q), null, v);
  it('counts a limit into everything below it; page nodes add no factor; a plain list counts 10', () => {
    // cars(limit: 50) = 50; each node's owner 1, the owner's rating 1, its verifications 10.
    expect(cost('{ cars(limit: 50) { nodes { id owner { rating { id } } verifications { id } } } }')).toEqual(
      {
        depth: 5,
        cost: 50 + 50 * (1 + 1 + 10),
      },
    );
    // Omitted limit = the default page size (100); a variable is read from the request.
    expect(cost('{ cars { total } }')?.cost).toBe(100);
    expect(cost('query($n: Int) { cars(limit: $n) { total } }', { n: 7 })?.cost).toBe(7);
    // Aliases and fragments count each time they are used; introspection counts nothing.
    expect(
      cost('{ a: cars(limit: 3) { ...F } b: cars(limit: 3) { ...F } } fragment F on CarPage { nodes { id } }')
        ?.cost,
    ).toBe(6);
    expect(cost('{ __schema { types { name fields { name type { name ofType { name } } } } } }')).toEqual({
      depth: 1,
      cost: 0,
    });
  });
});

describe('refusals', () => {
  it('refuses 600 aliases of cars(limit: 1000) with 400 QueryTooComplex before executing', async () => {
    const r = await gql(aliases(600, 'cars(limit: 1000) { nodes { id } }'));
    expect(r.status).toBe(400);
    expect(r.json.errors[0].extensions).toMatchObject({ code: 'QueryTooComplex', meta: { cost: 600_000 } });
    expect(r.json.data).toBeUndefined();
  });

  it('refuses a document nested deeper than 12 levels, before validating it', async () => {
    // The schema has no cycle deep enough, so the chain is 13 selection sets of any names: depth is counted
    // first, and such a document is too deep whatever its fields.
    const tooDeep = `{ ${'a { '.repeat(12)}id${' }'.repeat(12)} }`;
    const r = await gql(tooDeep);
    expect(r.status).toBe(400);
    expect(r.json.errors[0].extensions).toMatchObject({ code: 'QueryTooComplex', meta: { depth: 13 } });
    // 12 levels are allowed (and then refused by validation for their unknown fields).
    const twelve = await gql(`{ ${'a { '.repeat(11)}id${' }'.repeat(11)} }`);
    expect(twelve.json.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect((await gql('{ bookings(limit: 1) { nodes { car { owner { rating { id } } } } } }')).status).toBe(
      200,
    );
  });

  it('refuses nesting deep enough to exhaust a stack, as QueryTooComplex', async () => {
    const r = await gql(`{ ${'a { '.repeat(15_000)}id${' }'.repeat(15_000)} }`);
    expect(r.status).toBe(400);
    expect(r.json.errors[0].extensions.code).toBe('QueryTooComplex');
  });

  it('refuses a document over 64 KiB', async () => {
    const big = `{ __typename ${' '.repeat(65 * 1024)} }`;
    const r = await gql(big);
    expect(r.status).toBe(400);
    expect(r.json.errors[0].extensions.code).toBe('QueryTooComplex');
  });

  it('lets introspection through, reads limits from variables, and counts a page at most 1000', async () => {
    const intro = await gql('{ __schema { types { name fields { name args { name } } } } }');
    expect(intro.status).toBe(200);
    // A limit read from a variable counts like a literal: 51 × 1000 is over 50,000.
    const fields = Array.from({ length: 51 }, (_, i) => `a${i}: cars(limit: $n) { nodes { id } }`).join(' ');
    const r = await gql(`query($n: Int) { ${fields} }`, { n: 1000 });
    expect(r.status).toBe(400);
    expect(r.json.errors[0].extensions).toMatchObject({ code: 'QueryTooComplex', meta: { cost: 51_000 } });
    // A limit above the largest page costs what a page can hold, and the field itself refuses it.
    const huge = await gql('query($n: Int) { cars(limit: $n) { total } }', { n: 360_294_775 });
    expect(huge.json.errors[0].extensions.code).toBe('OutOfRange');
    const rest = await env.call('GET', '/api/cars?limit=360294775', { token: ops });
    expect(rest.status).toBe(400);
    expect(rest.json.ResponseStatus).toMatchObject({
      ErrorCode: 'OutOfRange',
      Errors: [{ FieldName: 'Limit' }],
    });
  });

  it('over graphql-ws: an error message with the same code (and for a NUL), and the connection stays open', async () => {
    const client = wsClient({ origin: env.origin, cert: env.service.cert }, ops);
    const run = (query: string) =>
      new Promise<unknown>((resolve) => {
        client.subscribe({ query }, { next: resolve, error: resolve, complete: () => resolve('complete') });
      });
    const refused = (await run(aliases(600, 'cars(limit: 1000) { nodes { id } }'))) as {
      extensions?: { code?: string };
    }[];
    expect(refused[0]?.extensions?.code).toBe('QueryTooComplex');
    const nul = (await run('{ cars(make: "a\\u0000b") { total } }')) as { extensions?: { code?: string } }[];
    expect(nul[0]?.extensions?.code).toBe('InvalidValue');
    const fine = (await run('{ cars(limit: 1) { total } }')) as { data?: unknown };
    expect(fine.data).toBeDefined();
    await client.dispose();
  });
});

describe('large queries of several root fields', () => {
  it('run one root field at a time with the same answer, errors included', async () => {
    const user = await createUser(env.h);
    for (let i = 0; i < 3; i += 1) await createCar(env.h, user.actor);
    const field = 'cars(limit: 1000, sort: "make") { total nodes { id make owner { id } } }';
    // 7 × 1000 + 7 × 1000 owners: over the 5,000 below which executions run whole.
    const aliases7 = Array.from({ length: 7 }, (_, i) => `a${i}: ${field}`).join(' ');
    const many = await gql(`{ ${aliases7} }`);
    const one = await gql(`{ ${field} }`);
    expect(one.json.data.cars.total).toBe(3);
    expect(many.status).toBe(200);
    for (let i = 0; i < 7; i += 1) expect(many.json.data[`a${i}`]).toEqual(one.json.data.cars);
    expect(Object.keys(many.json.data)).toEqual(Array.from({ length: 7 }, (_, i) => `a${i}`));
    // A failing non-null root field nulls the whole answer, as in one execution.
    const missing = `missing: car(id: "00000000-0000-4000-8000-000000000000") { id }`;
    const failed = await gql(`{ ${aliases7} ${missing} }`);
    expect(failed.json.data).toBeNull();
    expect(failed.json.errors).toMatchObject([{ path: ['missing'], extensions: { code: 'NotFound' } }]);
  });
});

describe('every REST facade document fits', () => {
  it('every route with embed=all and limit=1000 stays within depth 12, cost 50,000 and compiled size', () => {
    const table = new RouteTable(schema, routeModules);
    const documents = new DocumentCache(schema);
    let largest = 0;
    for (const route of table.routes) {
      const single = route.shape.kind !== 'page';
      const embed = parseEmbed(
        route.def.method === 'GET' ? 'all' : undefined,
        schema,
        table.names,
        route.shape.node,
        single,
      );
      const nodes = nodeSelection(route.shape.node, embed, null);
      const doc = documents.get({
        operation: route.operation,
        field: route.field.name,
        args: route.field.args,
        selection: route.shape.page ? pageSelection(route.shape.page, nodes) : nodes,
      });
      const c = complexityOf(schema, doc, null, { limit: 1000 })!;
      expect(c.depth, route.def.path).toBeLessThanOrEqual(12);
      expect(c.cost, route.def.path).toBeLessThanOrEqual(50_000);
      // Small enough to run compiled (graphql-jit), far within the 10,000 selections of CONTRACT §28.
      expect(expansionOf(doc).selections, route.def.path).toBeLessThanOrEqual(MAX_COMPILED_SELECTIONS);
      largest = Math.max(largest, c.cost);
    }
    // The limit variable was read: lists of 1000 with their embeds cost far more than a page of 100 would.
    expect(largest).toBeGreaterThan(10_000);
  });

  it('every list route answers limit=1000&embed=all over HTTP', async () => {
    const user = await createUser(env.h);
    await createCar(env.h, user.actor);
    const doc = (await env.call('GET', '/api/openapi.json')).json;
    const lists = Object.entries(
      doc.paths as Record<string, Record<string, { parameters?: { name: string }[] }>>,
    )
      .filter(
        ([p, ops]) => ops.get?.parameters?.some((x) => x.name?.toLowerCase() === 'limit') && !p.includes('{'),
      )
      .map(([p]) => p);
    expect(lists.length).toBeGreaterThan(5);
    for (const path of lists) {
      const r = await env.call('GET', `${path}?limit=1000&embed=all`, { token: ops });
      expect(r.status, `${path}: ${r.text.slice(0, 200)}`).toBe(200);
    }
  });
});
