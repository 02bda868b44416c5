// In-process reads take their turn at the execution gate with the document's cost. A cost no variable went into
// is kept per document; one that a variable changes (a page's limit) is costed again for every request.
import { buildSchema, parse } from 'graphql';
import { expect, it } from 'vitest';
import type { Actor } from '../../src/access/actor.js';
import type { CarShare } from '../../src/carshares/car-share.js';
import type { InProcessDeps } from '../../src/graphql/in-process.js';
import { inProcessExecutor } from '../../src/graphql/in-process.js';

const schema = buildSchema(`
  type Car { id: ID! owner: Profile! }
  type Profile { id: ID! }
  type Query { car(id: ID!): Car cars(limit: Int): [Car!]! }
`);

function executor() {
  const costs: number[] = [];
  const deps = {
    schema,
    compiled: { run: async () => ({ data: {} }) },
    gate: {
      run: async (cost: number, work: () => Promise<unknown>) => {
        costs.push(cost);
        return work();
      },
    },
    apollo: {},
    contextFor: () => ({}),
  } as unknown as InProcessDeps;
  return { run: inProcessExecutor(deps), costs };
}

const carShare = {} as unknown as CarShare;
const actor = { kind: 'anonymous', id: null, roles: [], scopes: [] } as unknown as Actor;

it('costs a document without variables in its cost once, and one with a limit variable every time', async () => {
  const { run, costs } = executor();
  const car = parse('query ($id: ID!) { car(id: $id) { id owner { id } } }');
  await run(car, { id: 'a' }, actor, carShare, 'r1');
  await run(car, { id: 'b' }, actor, carShare, 'r2');
  const page = parse('query ($limit: Int) { cars(limit: $limit) { id owner { id } } }');
  await run(page, { limit: 5 }, actor, carShare, 'r3');
  await run(page, { limit: 50 }, actor, carShare, 'r4');
  expect(costs).toEqual([costs[0], costs[0], 10, 100]);
  expect(costs[0]).toBeGreaterThan(0);
});
