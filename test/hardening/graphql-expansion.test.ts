// CONTRACT §28 through the real service: a document's size once its fragments are expanded is bounded (10,000
// field selections) before anything validates or compiles it, whatever the token, on HTTP and graphql-ws; the
// service keeps answering /healthz meanwhile; introspection holds one __schema and 20 __type root fields at most.
import { getIntrospectionQuery } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_NESTING } from '../../src/graphql/nesting.js';
import { createUser } from '../factories/accounts.js';
import { createCar } from '../factories/cars.js';
import { useRest } from '../rest-facade/support.js';
import { asOps } from '../support/actors.js';
import { doubling } from '../support/documents.js';
import { wsClient } from '../support/ws.js';

const env = useRest();
let ops: string;
beforeAll(async () => {
  ops = env.tokenFor(asOps());
  // A connection already open, so that the timings below are the service's and not a TLS handshake's.
  await env.call('GET', '/healthz');
});

const gql = (query: string, token?: string) => env.call('POST', '/graphql', { token, body: { query } });
const types = (n: number) =>
  Array.from({ length: n }, (_, i) => `t${i}: __type(name: "Car") { name fields { name } }`).join(' ');

describe('size after fragment expansion', () => {
  it.each([30, 60])(
    'refuses a %i-level fragment-doubling document without a token in well under 1 s, /healthz answering meanwhile',
    async (levels) => {
      const document = doubling(levels);
      expect(document.length).toBeLessThan(3000);
      const started = performance.now();
      const [post, get, health] = await Promise.all([
        gql(document),
        env.call('GET', `/graphql?query=${encodeURIComponent(document)}`, {
          headers: { 'apollo-require-preflight': 'true' },
        }),
        env.call('GET', '/healthz'),
      ]);
      // Before the bound, 20 levels took seconds and 30 more than 300 s, /healthz waiting as long.
      expect(performance.now() - started).toBeLessThan(1000);
      expect(health.status).toBe(200);
      for (const r of [post, get]) {
        expect(r.status).toBe(400);
        expect(r.json.errors[0].extensions).toMatchObject({
          code: 'QueryTooComplex',
          meta: { maxSelections: 10_000 },
        });
        expect(r.json.data).toBeUndefined();
      }
      // A token changes nothing.
      expect((await gql(document, ops)).json.errors[0].extensions.code).toBe('QueryTooComplex');
    },
  );

  it('accepts a wide legal document of 5,000 selections, and 10,000 exactly; refuses 10,001', async () => {
    const user = await createUser(env.h);
    await createCar(env.h, user.actor);
    const aliases = Array.from({ length: 5000 }, (_, i) => `a${i.toString(36)}: id`).join(' ');
    const wide = await gql(`{ cars(limit: 1) { nodes { ${aliases} } } }`, ops);
    expect(wide.status).toBe(200);
    expect(Object.keys(wide.json.data.cars.nodes[0])).toHaveLength(5000);
    // cars and nodes count 2, then 99 spreads of 100 fields and 98 fields of its own: 10,000.
    const fragment = `fragment F on Car { ${Array.from({ length: 100 }, (_, i) => `a${i}: id`).join(' ')} }`;
    const spreads = '...F '.repeat(99);
    const own = (n: number) => Array.from({ length: n }, (_, i) => `b${i}: make`).join(' ');
    const exactly = await gql(`{ cars(limit: 1) { nodes { ${spreads} ${own(98)} } } } ${fragment}`, ops);
    expect(exactly.status).toBe(200);
    expect(Object.keys(exactly.json.data.cars.nodes[0])).toHaveLength(198);
    const over = await gql(`{ cars(limit: 1) { nodes { ${spreads} ${own(99)} } } } ${fragment}`, ops);
    expect(over.status).toBe(400);
    expect(over.json.errors[0].extensions).toMatchObject({
      code: 'QueryTooComplex',
      meta: { selections: 10_001, maxSelections: 10_000 },
    });
  });
});

describe('introspection', () => {
  it('refuses a second __schema or a 21st __type, aliases and fragments included, without a token', async () => {
    const twice = await gql('{ a: __schema { queryType { name } } b: __schema { queryType { name } } }');
    expect(twice.status).toBe(400);
    expect(twice.json.errors[0].extensions).toMatchObject({
      code: 'QueryTooComplex',
      meta: { schemaFields: 2, maxSchemaFields: 1 },
    });
    const spread = await gql('{ ...S ...S } fragment S on Query { __schema { types { name } } }');
    expect(spread.status).toBe(400);
    expect(spread.json.errors[0].extensions.code).toBe('QueryTooComplex');
    const many = await gql(`{ ${types(21)} }`);
    expect(many.status).toBe(400);
    expect(many.json.errors[0].extensions).toMatchObject({
      code: 'QueryTooComplex',
      meta: { typeFields: 21, maxTypeFields: 20 },
    });
  });

  it('refuses one __schema whose aliases would answer many times the schema, or nested a thousand deep, in well under 1 s', async () => {
    const aliases = Array.from(
      { length: 1800 },
      (_, i) => `a${i.toString(36)}:types{fields{name args{name}}}`,
    );
    const nested = (k: number) =>
      `{ __schema { types { ${'fields { type { '.repeat(k)} name ${'} } '.repeat(k)} } } }`;
    const document = `{ __schema { ${aliases.join(' ')} } }`;
    expect(document.length).toBeLessThan(64 * 1024);
    const started = performance.now();
    const [r, health] = await Promise.all([gql(document), env.call('GET', '/healthz')]);
    // Before, the 1,800 aliases answered 28 MB after seconds of a held event loop (+380 MB RSS).
    expect(performance.now() - started).toBeLessThan(1000);
    expect(health.status).toBe(200);
    expect(r.status).toBe(400);
    expect(r.json.errors[0].extensions).toMatchObject({ code: 'QueryTooComplex' });
    expect(r.json.errors[0].extensions.meta.maxIntrospectionValues).toBeGreaterThan(0);
    // Nesting a thousand deep is refused before anything parses it (the parser and the checks after it recurse, and
    // ran out of stack on it or not depending on how warm the process was), the same way every time.
    const deepest = nested(1000);
    expect(deepest.length).toBeLessThan(64 * 1024);
    const startedDeep = performance.now();
    const [deep, healthDeep] = await Promise.all([gql(deepest), env.call('GET', '/healthz')]);
    expect(performance.now() - startedDeep).toBeLessThan(1000);
    expect(healthDeep.status).toBe(200);
    expect(deep.status).toBe(400);
    expect(deep.json.errors[0].extensions).toMatchObject({
      code: 'QueryTooComplex',
      meta: { maxNesting: MAX_NESTING },
    });
    // A few aliases of the schema's types are still an answer.
    const few = await gql(`{ __schema { ${aliases.slice(0, 3).join(' ')} } }`);
    expect(few.status).toBe(200);
  });

  it("accepts one __schema with 20 __type, and GraphiQL's introspection query", async () => {
    const most = await gql(`{ __schema { queryType { name } } ${types(20)} }`, ops);
    expect(most.status).toBe(200);
    expect(most.json.data.t19.name).toBe('Car');
    for (const token of [undefined, ops]) {
      const graphiql = await gql(getIntrospectionQuery(), token);
      expect(graphiql.status).toBe(200);
      expect(graphiql.json.data.__schema.types.length).toBeGreaterThan(10);
    }
  });
});

it('over graphql-ws: an error message with QueryTooComplex, and the connection stays open', async () => {
  const client = wsClient({ origin: env.origin, cert: env.service.cert }, ops);
  let closed = false;
  client.on('closed', () => {
    closed = true;
  });
  const run = (query: string) =>
    new Promise<unknown>((resolve) => {
      client.subscribe({ query }, { next: resolve, error: resolve, complete: () => resolve('complete') });
    });
  const started = performance.now();
  const refused = (await run(doubling(60))) as { extensions?: { code?: string } }[];
  expect(performance.now() - started).toBeLessThan(1000);
  expect(refused[0]?.extensions?.code).toBe('QueryTooComplex');
  const schemas = (await run('{ a: __schema { __typename } b: __schema { __typename } }')) as {
    extensions?: { code?: string };
  }[];
  expect(schemas[0]?.extensions?.code).toBe('QueryTooComplex');
  const fine = (await run('{ __schema { queryType { name } } }')) as { data?: unknown };
  expect(fine.data).toBeDefined();
  expect(closed).toBe(false);
  await client.dispose();
});
