// The execution gate (CONTRACT §13 "Memory"): small executions never wait; pages and large ones queue for budgets
// of their own, first come first served, and one larger than its budget runs alone.
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect, it, vi } from 'vitest';
import { createExecutionGate, gateSizes } from '../../src/graphql/execution-gate.js';
import { markAccepted, markArrived } from '../../src/http/arrival.js';
import { clientGone } from '../../src/http/request-signal.js';

const tick = () => new Promise((r) => setImmediate(r));
const sizes = {
  freeBelow: 10,
  freeAtOnce: 100,
  pagesBelow: 100,
  pageBudget: 250,
  budget: 1000,
  queueFactor: 10,
  maxWaitMs: 60_000,
};

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

it('bounds small executions by their cost too: as many cheap ones as before, fewer short pages', async () => {
  // 100 at once at the floor (200 / 100 = 2 each); executions of cost 10 fill it twenty at a time.
  const gate = createExecutionGate({ ...sizes, freeBudget: 200 });
  const cheap = await Promise.all(Array.from({ length: 100 }, () => gate.enter(1)));
  expect(gate.freeRunning).toBe(100);
  let more = false;
  const next = gate.enter(1).then((leave) => {
    more = true;
    return leave;
  });
  await tick();
  expect(more).toBe(false);
  for (const leave of cheap) leave();
  (await next)();
  expect(gate.freeRunning).toBe(0);
  const pages = await Promise.all(Array.from({ length: 20 }, () => gate.enter(10)));
  let twentyFirst = false;
  const waiting = gate.enter(10).then((leave) => {
    twentyFirst = true;
    return leave;
  });
  await tick();
  expect(twentyFirst).toBe(false);
  expect(gate.waiting).toBe(1);
  pages[0]!();
  pages[0]!();
  (await waiting)();
  expect(twentyFirst).toBe(true);
  for (const leave of pages.slice(1)) leave();
  expect(gate.freeRunning).toBe(0);
  expect(gate.waiting).toBe(0);
});

it("the service's sizes: 128 single cars at once, but only 23 pages of 20 cars with every embed", async () => {
  const count = async (cost: number, n: number) => {
    const gate = createExecutionGate(gateSizes(50_000));
    const held: (() => void)[] = [];
    // More than run at once, fewer than may wait besides: none is refused.
    const all = Array.from({ length: n }, () => gate.enter(cost).then((leave) => held.push(leave)));
    await tick();
    const running = gate.freeRunning;
    // Every one starts in turn as those before it leave.
    let left = 0;
    while (left < n) {
      for (const leave of held.splice(0)) {
        leave();
        left += 1;
      }
      await tick();
    }
    await Promise.all(all);
    expect(gate.freeRunning).toBe(0);
    return running;
  };
  expect(await count(17, 140)).toBe(128);
  expect(await count(340, 100)).toBe(23);
});

// CONTRACT §28 "Overload": every lane's queue is bounded in length and in waiting time, a waiter whose client hung
// up leaves it without ever starting, and an execution that throws gives its slot back.
const bounded = { ...sizes, freeAtOnce: 2, queueFactor: 1, maxWaitMs: 1_000 };
const refusalOf = (p: Promise<unknown>) =>
  p.then(
    () => 'started',
    (e: { name?: string; code?: string; reason?: string }) => `${e.name} ${e.code} ${e.reason}`,
  );

it('refuses an execution at once when its lane already queues as much as the lane runs at once', async () => {
  const shed: string[] = [];
  const gate = createExecutionGate(bounded, (reason) => shed.push(reason));
  // Pages: 250 may run and 250 may wait.
  const running = [await gate.enter(100), await gate.enter(100)];
  const queued = [gate.enter(100), gate.enter(100)];
  expect(await refusalOf(gate.enter(100))).toBe('GateRefusal ServiceUnavailable queue_full');
  // Small executions: two run, two wait, the fifth is refused.
  const small = [await gate.enter(1), await gate.enter(1)];
  const smallQueued = [gate.enter(1), gate.enter(1)];
  expect(await refusalOf(gate.enter(1))).toBe('GateRefusal ServiceUnavailable queue_full');
  expect(gate.waiting).toBe(4);
  expect(shed).toEqual(['queue_full', 'queue_full']);
  for (const leave of [...running, ...small]) leave();
  for (const leave of await Promise.all([...queued, ...smallQueued])) leave();
  expect(gate.inUse).toBe(0);
  expect(gate.freeRunning).toBe(0);
});

it('refuses an execution that waited longer than the bound, and admits those behind it', async () => {
  vi.useFakeTimers();
  try {
    const shed: string[] = [];
    const gate = createExecutionGate(bounded, (reason) => shed.push(reason));
    const huge = await gate.enter(50_000);
    const waiting = refusalOf(gate.enter(600));
    await vi.advanceTimersByTimeAsync(999);
    expect(gate.waiting).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await waiting).toBe('GateRefusal ServiceUnavailable wait_timeout');
    expect(gate.waiting).toBe(0);
    expect(shed).toEqual(['wait_timeout']);
    huge();
    expect(gate.inUse).toBe(0);
  } finally {
    vi.useRealTimers();
  }
});

it('drops a waiter whose client hung up: it never starts, and those behind it move up', async () => {
  const shed: string[] = [];
  const gate = createExecutionGate(bounded, (reason) => shed.push(reason));
  const running = [await gate.enter(100), await gate.enter(100)];
  // A third page of 100 is over the budget of 250: it waits at the head, and the page of 50 behind it waits too.
  const client = new AbortController();
  let started = false;
  const head = gate.enter(100, client.signal).then((leave) => {
    started = true;
    return leave;
  });
  const behind = gate.enter(50);
  await tick();
  expect(gate.waiting).toBe(2);
  client.abort();
  expect(await refusalOf(head)).toBe('GateRefusal ServiceUnavailable disconnected');
  // The page of 50 fits beside the one running now that the head has gone.
  (await behind)();
  for (const leave of running) leave();
  await tick();
  expect(started).toBe(false);
  expect(gate.waiting).toBe(0);
  expect(gate.inUse).toBe(0);
  // A client gone before its turn was even asked for is refused in every lane, small ones included.
  expect(await refusalOf(gate.enter(1, client.signal))).toBe('GateRefusal ServiceUnavailable disconnected');
  expect(shed).toEqual(['disconnected', 'disconnected']);
  expect(gate.freeRunning).toBe(0);
});

it('gives the slot back when an execution throws, in every lane', async () => {
  const gate = createExecutionGate(bounded);
  for (const cost of [1, 100, 600, 50_000]) {
    await expect(
      gate.run(cost, async () => {
        throw new Error(`failed at cost ${cost}`);
      }),
    ).rejects.toThrow(`failed at cost ${cost}`);
    expect([gate.inUse, gate.freeRunning, gate.waiting]).toEqual([0, 0, 0]);
  }
  // The whole large budget is free again: a large execution starts at once.
  expect(await gate.run(50_000, async () => gate.inUse)).toBe(1000);
});

it('counts the wait from when the request arrived, not from when it joined the queue', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  try {
    const shed: string[] = [];
    const gate = createExecutionGate(bounded, (reason) => shed.push(reason));
    const huge = await gate.enter(50_000);
    // A request accepted now, whose turn at the gate comes 800 ms later (a TLS handshake behind a busy event loop).
    const socket = new EventEmitter();
    markAccepted(socket);
    const res = Object.assign(new EventEmitter(), { writableFinished: false }) as unknown as ServerResponse;
    markArrived({ socket } as unknown as IncomingMessage, res);
    await vi.advanceTimersByTimeAsync(800);
    const early = refusalOf(gate.enter(400, clientGone(res)));
    // One without an arrival waits the whole bound from joining.
    const late = refusalOf(gate.enter(400));
    await vi.advanceTimersByTimeAsync(200);
    expect(await early).toBe('GateRefusal ServiceUnavailable wait_timeout');
    expect(gate.waiting).toBe(1);
    // One that arrived longer ago than the bound is refused without queueing.
    const res2 = Object.assign(new EventEmitter(), { writableFinished: false }) as unknown as ServerResponse;
    markArrived({ socket: new EventEmitter() } as unknown as IncomingMessage, res2);
    await vi.advanceTimersByTimeAsync(800);
    expect(await late).toBe('GateRefusal ServiceUnavailable wait_timeout');
    await vi.advanceTimersByTimeAsync(200);
    expect(await refusalOf(gate.enter(400, clientGone(res2)))).toBe(
      'GateRefusal ServiceUnavailable wait_timeout',
    );
    expect(shed).toEqual(['wait_timeout', 'wait_timeout', 'wait_timeout']);
    huge();
  } finally {
    vi.useRealTimers();
  }
});
