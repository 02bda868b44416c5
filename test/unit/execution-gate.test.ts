// The execution gate (CONTRACT §13 "Memory"): small executions never wait; pages and large ones queue for budgets
// of their own, first come first served, and one larger than its budget runs alone.
import { expect, it } from 'vitest';
import { createExecutionGate } from '../../src/graphql/execution-gate.js';

const tick = () => new Promise((r) => setImmediate(r));
const sizes = { freeBelow: 10, pagesBelow: 100, pageBudget: 250, budget: 1000 };

it('lets small executions through at once while large ones queue for the budget', async () => {
  const gate = createExecutionGate(sizes);
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
  const small = await gate.enter(10);
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

it('bounds pages by their own budget, never behind a large execution', async () => {
  const gate = createExecutionGate(sizes);
  const huge = await gate.enter(50_000);
  const pages = [await gate.enter(100), await gate.enter(100)];
  let third = false;
  const waiting = gate.enter(100).then((leave) => {
    third = true;
    return leave;
  });
  await tick();
  // Two pages of 100 fill 200 of 250: the third waits, though the large lane is full too and nothing else runs.
  expect(third).toBe(false);
  expect(gate.waiting).toBe(1);
  expect(gate.isLarge(100)).toBe(false);
  expect(gate.isLarge(101)).toBe(true);
  pages[0]!();
  (await waiting)();
  expect(third).toBe(true);
  pages[1]!();
  huge();
  expect(gate.inUse).toBe(0);
});
