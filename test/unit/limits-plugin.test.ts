// The execution gate as Apollo's limits plugin uses it (CONTRACT §28 "Overload"): a refusal is the operation's
// answer (503, `ServiceUnavailable`, `Retry-After`), and a slot is given back even when Apollo gives up on the
// request after it was taken (a hook threw: `willSendResponse` then never runs).
import { ApolloServer } from '@apollo/server';
import { buildSchema } from 'graphql';
import { afterEach, expect, it } from 'vitest';
import type { Context } from '../../src/graphql/context.js';
import { createExecution } from '../../src/graphql/execution.js';
import { createExecutionGate, type ExecutionGate } from '../../src/graphql/execution-gate.js';
import { limitsPlugin } from '../../src/graphql/limits.js';
import { createMetrics } from '../../src/metrics/metrics.js';

const schema = buildSchema(`
  type Thing { name: String }
  type Query { a: Thing b: Thing }
`);
let hangUp: (() => void) | undefined;
let bRuns = 0;
// Resolvers on the schema itself: the split execution runs graphql-js without Apollo's root value.
const fields = schema.getQueryType()!.getFields();
fields.a!.resolve = () => {
  hangUp?.();
  return { name: 'a' };
};
fields.b!.resolve = () => {
  bRuns += 1;
  throw new Error('b failed');
};
// `{ a { name } b { name } }` costs 2: a large query here (run root field by root field), alone in its lane.
const sizes = {
  freeBelow: 0,
  freeAtOnce: 1,
  pagesBelow: 1,
  pageBudget: 1,
  budget: 2,
  queueFactor: 1,
  maxWaitMs: 60_000,
};
const silent = { debug() {}, info() {}, warn() {}, error() {} };

let server: ApolloServer<Context> | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function start(gate: ExecutionGate, formatError = (f: { message: string }) => f) {
  server = new ApolloServer<Context>({
    schema,
    logger: silent,
    plugins: [
      limitsPlugin(
        { maxDepth: 10, maxCost: 100 },
        gate,
        createExecution({ schema, gate, metrics: createMetrics() }),
        formatError as never,
      ),
    ],
  });
  await server.start();
  return server;
}

// What the split execution touches of a context: the unit of work it clears between root fields, the loaders.
const context = (signal?: AbortSignal) => ({
  contextValue: { signal, em: { clear() {} }, loaders: new Map() } as unknown as Context,
});

it('gives the slot back when a large query throws after it entered the gate', async () => {
  const gate = createExecutionGate(sizes);
  // Formatting the error of `b` throws inside the split execution: Apollo answers 500 and runs no other hook.
  const apollo = await start(gate, () => {
    throw new Error('formatting failed');
  });
  await expect(apollo.executeOperation({ query: '{ a { name } b { name } }' }, context())).rejects.toThrow();
  expect(gate.inUse).toBe(0);
  // The lane is free: the next large query runs at once instead of waiting for ever.
  const ok = await apollo.executeOperation({ query: '{ a { name } }' }, context());
  expect(ok.body.kind === 'single' && ok.body.singleResult.data).toEqual({ a: { name: 'a' } });
  expect(gate.inUse).toBe(0);
});

it('answers 503 ServiceUnavailable with Retry-After when the gate refuses, and executes nothing', async () => {
  const gate = createExecutionGate(sizes);
  const apollo = await start(gate);
  const held = await gate.enter(2);
  const client = new AbortController();
  const queued = apollo.executeOperation({ query: '{ a { name } b { name } }' }, context(client.signal));
  for (let i = 0; i < 100 && gate.waiting === 0; i += 1) await new Promise((r) => setImmediate(r));
  expect(gate.waiting).toBe(1);
  // The lane queues at most its budget (2): one more is refused at once.
  const refused = await apollo.executeOperation({ query: '{ a { name } b { name } }' }, context());
  expect(refused.http.status).toBe(503);
  expect(refused.http.headers.get('retry-after')).toMatch(/^[1-5]$/);
  expect(refused.body.kind === 'single' && refused.body.singleResult).toEqual({
    errors: [
      {
        message: expect.any(String),
        extensions: { code: 'ServiceUnavailable', meta: { retryAfterSeconds: expect.any(Number) } },
      },
    ],
  });
  // The queued one's client hangs up: it leaves the queue, refused, and never runs.
  client.abort();
  const gone = await queued;
  expect(gone.http.status).toBe(503);
  expect(gate.waiting).toBe(0);
  held();
  expect(gate.inUse).toBe(0);
});

it('runs no more root fields of a large query once its client has hung up', async () => {
  const gate = createExecutionGate(sizes);
  const apollo = await start(gate);
  const client = new AbortController();
  hangUp = () => client.abort();
  bRuns = 0;
  try {
    const r = await apollo.executeOperation({ query: '{ a { name } b { name } }' }, context(client.signal));
    expect(bRuns).toBe(0);
    expect(r.body.kind === 'single' && r.body.singleResult.errors?.[0]?.extensions?.code).toBe(
      'ServiceUnavailable',
    );
  } finally {
    hangUp = undefined;
  }
  expect(gate.inUse).toBe(0);
});
