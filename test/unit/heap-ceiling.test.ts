// The heap ceiling (CONTRACT §13 "Memory", docs/decisions.md): after a queued execution, a full collection when V8's
// used heap is above the ceiling, deferred past the turn's I/O, one at a time; the ceiling then follows what is live.
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { createExecutionGate } from '../../src/graphql/execution-gate.js';
import { heapCeiling } from '../../src/graphql/heap-ceiling.js';

const MB = 1_048_576;

function fakeHeap(start: number) {
  const heap = { used: start, collected: 0, deferred: [] as (() => void)[], liveAfter: start };
  const ceiling = heapCeiling({
    floorBytes: 100 * MB,
    growth: 1.5,
    usedHeap: () => heap.used,
    collect: () => {
      heap.collected += 1;
      heap.used = heap.liveAfter;
    },
    defer: (run) => heap.deferred.push(run),
  });
  const runDeferred = () => {
    for (const run of heap.deferred.splice(0)) run();
  };
  return { heap, ceiling, runDeferred };
}

it('collects once the used heap is above the floor, after the turn, and not again while one is pending', () => {
  const { heap, ceiling, runDeferred } = fakeHeap(90 * MB);
  ceiling.check();
  expect(heap.deferred).toHaveLength(0);
  heap.used = 130 * MB;
  heap.liveAfter = 60 * MB;
  ceiling.check();
  ceiling.check();
  // Deferred, and asked for once however many executions leave before it runs.
  expect(heap.collected).toBe(0);
  expect(heap.deferred).toHaveLength(1);
  runDeferred();
  expect(heap.collected).toBe(1);
  expect(ceiling.collections).toBe(1);
  // 1.5 × 60 MB live is under the floor: the floor stays the ceiling.
  expect(ceiling.bytes).toBe(100 * MB);
});

it('raises the ceiling with what is live, so a large live heap is not collected after every page', () => {
  const { heap, ceiling, runDeferred } = fakeHeap(250 * MB);
  heap.liveAfter = 200 * MB;
  ceiling.check();
  runDeferred();
  expect(ceiling.bytes).toBe(300 * MB);
  heap.used = 290 * MB;
  ceiling.check();
  expect(heap.deferred).toHaveLength(0);
  heap.used = 310 * MB;
  heap.liveAfter = 50 * MB;
  ceiling.check();
  runDeferred();
  // And lowers it again, to the floor at least, once what is live shrinks.
  expect(ceiling.bytes).toBe(100 * MB);
  expect(heap.collected).toBe(2);
});

it('does nothing without a collector (Node without --expose-gc)', () => {
  let asked = 0;
  const ceiling = heapCeiling({
    floorBytes: 1,
    growth: 1.5,
    collect: undefined,
    usedHeap: () => {
      asked += 1;
      return 10 * MB;
    },
    defer: () => {
      throw new Error('nothing to defer');
    },
  });
  ceiling.check();
  expect(ceiling.collections).toBe(0);
  expect(asked).toBe(0);
});

it('is told when a queued execution leaves the gate, once, and never for a small one', async () => {
  let told = 0;
  const gate = createExecutionGate(
    {
      freeBelow: 10,
      freeAtOnce: 100,
      pagesBelow: 100,
      pageBudget: 250,
      budget: 1000,
      queueFactor: 10,
      maxWaitMs: 60_000,
    },
    () => {
      told += 1;
    },
  );
  (await gate.enter(10))();
  expect(told).toBe(0);
  const page = await gate.enter(100);
  expect(told).toBe(0);
  page();
  page();
  expect(told).toBe(1);
  (await gate.enter(5_000))();
  expect(told).toBe(2);
});

// The real thing: V8's collector as `npm start` exposes it, in a fresh process given that flag.
const script = `
import { exposedFullCollection, heapCeiling } from './src/graphql/heap-ceiling.ts';
import { getHeapStatistics } from 'node:v8';
const used = () => getHeapStatistics().used_heap_size;
let garbage = Array.from({ length: 400_000 }, (_, i) => ({ i, text: 'x'.repeat(64) + i }));
const before = used();
garbage = null;
const ceiling = heapCeiling({ floorBytes: 16 * 1_048_576, growth: 1.5, collect: exposedFullCollection() });
ceiling.check();
await new Promise((r) => setImmediate(r));
await new Promise((r) => setImmediate(r));
console.log(JSON.stringify({ before, after: used(), collections: ceiling.collections, ceiling: ceiling.bytes }));
`;

it('collects with the V8 collector --expose-gc gives, and sets the ceiling from what is left', () => {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: new URL('../..', import.meta.url), encoding: 'utf8' },
  );
  const r = JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, number>;
  expect(r.collections).toBe(1);
  // 400,000 objects with their strings were ~60 MB; after the collection most of it is gone.
  expect(r.before! - r.after!).toBeGreaterThan(30 * MB);
  expect(r.ceiling).toBe(Math.max(16 * MB, Math.round(r.after! * 1.5)));
});
