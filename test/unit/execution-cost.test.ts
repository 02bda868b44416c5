// Executions take their turn at the execution gate with the document's cost (src/graphql/execution.ts). A cost no
// variable went into is kept per document; one that a variable changes (a page's limit) is costed again for every
// request. Each run is counted in `graphql_operations_total`, the REST facade's reads included.
import { buildSchema, parse } from 'graphql';
import { expect, it } from 'vitest';
import type { Context } from '../../src/graphql/context.js';
import { createExecution } from '../../src/graphql/execution.js';
import type { ExecutionGate } from '../../src/graphql/execution-gate.js';
import { createMetrics } from '../../src/metrics/metrics.js';

const schema = buildSchema(`
  type Car { id: ID! owner: Profile! }
  type Profile { id: ID! }
  type Query { car(id: ID!): Car cars(limit: Int): [Car!]! }
`);

function execution() {
  const costs: number[] = [];
  const gate = {
    run: async (cost: number, work: () => Promise<unknown>) => {
      costs.push(cost);
      return work();
    },
  } as unknown as ExecutionGate;
  const metrics = createMetrics();
  return { execution: createExecution({ schema, gate, metrics }), costs, metrics };
}

const context = {} as Context;

it('costs a document without variables in its cost once, and one with a limit variable every time', async () => {
  const { execution: e, costs } = execution();
  const car = parse('query ($id: ID!) { car(id: $id) { id owner { id } } }');
  await e.run({ document: car, variables: { id: 'a' }, context });
  await e.runCompiled({ document: car, variables: { id: 'b' }, context });
  const page = parse('query ($limit: Int) { cars(limit: $limit) { id owner { id } } }');
  await e.run({ document: page, variables: { limit: 5 }, context });
  await e.runCompiled({ document: page, variables: { limit: 50 }, context });
  expect(costs).toEqual([costs[0], costs[0], 10, 100]);
  expect(costs[0]).toBeGreaterThan(0);
});

it('counts every run in graphql_operations_total, by type, name and outcome', async () => {
  const { execution: e, metrics } = execution();
  await e.runCompiled({ document: parse('query Car { car(id: "a") { id } }'), variables: {}, context });
  await e.run({ document: parse('{ cars { id } }'), variables: {}, context });
  const text = await metrics.registry.metrics();
  expect(text).toContain('graphql_operations_total{type="query",name="Car",outcome="success"} 1');
  // No resolvers: `cars` is null for a non-null list, an error.
  expect(text).toContain('graphql_operations_total{type="query",name="anonymous",outcome="error"} 1');
});

it('costs each named operation of one document on its own', async () => {
  const { execution: e, costs } = execution();
  const both = parse('query One { car(id: "a") { id } } query Page { cars(limit: 7) { id } }');
  await e.run({ document: both, operationName: 'One', variables: {}, context });
  await e.run({ document: both, operationName: 'Page', variables: {}, context });
  expect(costs[1]).toBe(7);
  expect(costs[0]).not.toBe(costs[1]);
});
