// The execution gate (CONTRACT §13 "Memory"): small executions never wait; large ones share one budget, first
// come first served, and one larger than the budget runs alone.
import { expect, it } from 'vitest';
import { createExecutionGate } from '../../src/graphql/execution-gate.js';

const tick = () => new Promise((r) => setImmediate(r));

it('lets small executions through at once while large ones queue for the budget', async () => {
  const gate = createExecutionGate({ freeBelow: 100, budget: 1000 });
  const order: string[] = [];
  const a = await gate.enter(600);
  order.push('a');
  const b = gate.enter(600).then((leave) => {
    order.push('b');
    return leave;
  });
  const c = gate.enter(300).then((leave) => {
    order.push('c');
    return leave;
  });
  await tick();
  // b does not fit beside a; c would, but does not overtake b.
  expect(order).toEqual(['a']);
  expect(gate.waiting).toBe(2);
  const small = await gate.enter(100);
  order.push('small');
  small();
  expect(order).toEqual(['a', 'small']);
  a();
  (await b)();
  (await c)();
  expect(order).toEqual(['a', 'small', 'b', 'c']);
  expect(gate.inUse).toBe(0);
  // Larger than the budget: runs alone, and releasing twice changes nothing.
  const huge = await gate.enter(50_000);
  expect(gate.inUse).toBe(1000);
  huge();
  huge();
  expect(gate.inUse).toBe(0);
});
