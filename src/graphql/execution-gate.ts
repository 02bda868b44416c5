// Executions queue by cost (CONTRACT §13 "Memory"): weighted semaphores keyed on the document's cost, so what runs
// at once (and so the memory its partial answers hold) is bounded, while small requests (a single object, a short
// page) do not wait behind pages. Pages and large queries queue in lanes of their own: a page never waits behind a
// large query. Every queue is bounded in length and in waiting time, and a waiter whose client has gone leaves it:
// past a bound the execution is refused, and the service answers 503 `ServiceUnavailable` (CONTRACT §28 "Overload").
import { lane, type ShedReason } from './execution-lane.js';

export interface ExecutionGate {
  /**
   * Waits until an execution of this cost may run; call the returned function when it is done. Rejects with a
   * `GateRefusal` when its lane's queue is full, when it waited `maxWaitMs`, or when `signal` aborts (its client
   * hung up) before it started: a refused execution never starts.
   */
  enter(cost: number, signal?: AbortSignal): Promise<() => void>;
  /** Runs `work` as an execution of this cost; its slot is given back however `work` ends. */
  run<T>(cost: number, work: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Whether an execution of this cost is a large one (it runs root field by root field). */
  isLarge(cost: number): boolean;
  /** Executions waiting now, over every lane (for tests and metrics). */
  readonly waiting: number;
  /** The budget in use in the page and large lanes (cost units). */
  readonly inUse: number;
  /** Small executions running now (a count, not their cost). */
  readonly freeRunning: number;
}

export interface GateOptions {
  /** Executions costing at most this are small: they share `freeBudget`, and wait only when it is spent. */
  freeBelow: number;
  /** How many small executions run at once: each weighs at least `freeBudget / freeAtOnce`. */
  freeAtOnce: number;
  /**
   * What small executions running together may cost in all (default `freeAtOnce × freeBelow`: a count, whatever
   * their cost). Below that default, the lane bounds what its executions may return, not only how many they are.
   */
  freeBudget?: number;
  /** Executions costing at most this (and more than `freeBelow`) are pages: they share `pageBudget`. */
  pagesBelow: number;
  /** What pages running together may cost in all. */
  pageBudget: number;
  /** What large executions running together may cost in all; one larger than this runs alone. */
  budget: number;
  /** What may wait in a lane, as a multiple of what runs in it at once (its budget). */
  queueFactor: number;
  /** How long an execution may wait for its turn before it is refused. */
  maxWaitMs: number;
}

/**
 * The service's sizes for a cost limit. A single object with every embed costs at most a few dozen and a page of 10
 * at most a few hundred: they run at once. A REST page of 100 costs 500 without embeds and 1,800 (cars) to 3,200
 * (bookings) with everything embedded: a handful run together, the rest wait. With 100 connections asking for pages,
 * running all of them at once bought no throughput (10 database connections, 2 cores) but held every one's partial
 * answer in memory for as long as the slowest took, long enough for V8 to promote it to the old generation
 * (test/bench S1); 2,000 pages of 100 cars at once took 30 s each and 441 MB (test/bench/overload.ts).
 *
 * Queues: a lane's queue holds at most 4 times what runs in it at once. The queue smooths a burst, it is no place
 * to keep a backlog: what waits in it must start within the 5 s of CONTRACT §28, or it held its socket, its request
 * and a place in line only to be refused later. A page of 100 takes ~20 ms of CPU (test/bench S1): four times the
 * 16 plain pages (or 4 pages with every embed) the lane runs at once start within a second on a quiet machine, and
 * within the 5 s on one loaded several times over (test/bench/overload.ts served 12 pages/s there; with 16 times,
 * most of the queue waited 5 s to be refused). Past the bound a request is refused at once, which costs nothing.
 * Large queries take seconds each: there the waiting bound refuses what the length bound lets in.
 * The small lane lets 128 single objects run at once: with 10 database connections, more only wait for one while
 * holding their memory. It is weighted by cost like the others (issue 30): it let 128 short pages run at once
 * whatever their rows, 51,200 objects against the page lane's 8,000; now at most 23 pages of 20 cars with every
 * embed (cost 340 each) run together.
 */
export const gateSizes = (maxCost: number): GateOptions => ({
  freeBelow: 400,
  freeAtOnce: 128,
  freeBudget: 8_000,
  pagesBelow: 5_000,
  pageBudget: 8_000,
  budget: maxCost,
  queueFactor: 4,
  maxWaitMs: 5_000,
});

export function createExecutionGate(
  { freeBelow, freeAtOnce, freeBudget, pagesBelow, pageBudget, budget, queueFactor, maxWaitMs }: GateOptions,
  /** Told each time an execution is refused, and why (a metric). */
  shed: (reason: ShedReason) => void = () => undefined,
): ExecutionGate {
  const laneOf = (size: number) => lane({ budget: size, maxQueued: queueFactor * size, maxWaitMs, shed });
  const freeTotal = freeBudget ?? freeAtOnce * freeBelow;
  const freeFloor = freeTotal / freeAtOnce;
  const free = laneOf(freeTotal);
  const pages = laneOf(pageBudget);
  const large = laneOf(budget);
  const enter = (cost: number, signal?: AbortSignal) => {
    // Each execution weighs its cost in its lane, the whole budget at most; a small one at least the free floor.
    if (cost <= freeBelow) return free.enter(Math.max(cost, freeFloor), signal);
    return cost <= pagesBelow
      ? pages.enter(Math.min(cost, pageBudget), signal)
      : large.enter(Math.min(cost, budget), signal);
  };
  return {
    isLarge: (cost) => cost > pagesBelow,
    get waiting() {
      return free.waiting + pages.waiting + large.waiting;
    },
    get inUse() {
      return pages.inUse + large.inUse;
    },
    get freeRunning() {
      return free.running;
    },
    enter,
    async run(cost, work, signal) {
      const leave = await enter(cost, signal);
      try {
        return await work();
      } finally {
        leave();
      }
    },
  };
}
