// Executions queue by cost (CONTRACT §13 "Memory"): weighted semaphores keyed on the document's cost, so what runs
// at once (and so the memory its partial answers hold) is bounded, while small requests (a single object, a short
// page) never wait. Pages and large queries queue in lanes of their own: a page never waits behind a large query.
export interface ExecutionGate {
  /** Waits until an execution of this cost may run; call the returned function when it is done. */
  enter(cost: number): Promise<() => void>;
  /** Whether an execution of this cost is a large one (it runs root field by root field). */
  isLarge(cost: number): boolean;
  /** Executions waiting now, and the budget in use, over both lanes (for tests and metrics). */
  readonly waiting: number;
  readonly inUse: number;
}

export interface GateOptions {
  /** Executions costing at most this run at once, without waiting. */
  freeBelow: number;
  /** Executions costing at most this (and more than `freeBelow`) are pages: they share `pageBudget`. */
  pagesBelow: number;
  /** What pages running together may cost in all. */
  pageBudget: number;
  /** What large executions running together may cost in all; one larger than this runs alone. */
  budget: number;
}

/**
 * The service's sizes for a cost limit. A single object with every embed costs at most a few dozen and a page of 10
 * at most a few hundred: they run at once. A REST page of 100 with everything embedded costs 1,800 (cars) to 3,200
 * (bookings): a handful run together, the rest wait. With 100 connections asking for pages, running all of them at
 * once bought no throughput (10 database connections, 2 cores) but held every one's partial answer in memory for
 * as long as the slowest took, long enough for V8 to promote it to the old generation (test/bench S1).
 */
export const gateSizes = (maxCost: number): GateOptions => ({
  freeBelow: 500,
  pagesBelow: 5_000,
  pageBudget: 8_000,
  budget: maxCost,
});

interface Lane {
  enter(weight: number): Promise<() => void>;
  readonly waiting: number;
  readonly inUse: number;
}

/**
 * A weighted semaphore, first come first served: a heavy one at the head is not overtaken by lighter ones forever.
 * `left` is told once per execution that leaves.
 */
function lane(budget: number, left: () => void): Lane {
  let inUse = 0;
  const queue: { weight: number; start: () => void }[] = [];

  const admit = () => {
    while (queue.length > 0) {
      const head = queue[0]!;
      if (inUse > 0 && inUse + head.weight > budget) return;
      queue.shift();
      inUse += head.weight;
      head.start();
    }
  };

  return {
    get waiting() {
      return queue.length;
    },
    get inUse() {
      return inUse;
    },
    enter(cost) {
      const weight = Math.min(cost, budget);
      return new Promise((resolve) => {
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          inUse -= weight;
          admit();
          left();
        };
        queue.push({ weight, start: () => resolve(release) });
        admit();
      });
    },
  };
}

export function createExecutionGate(
  { freeBelow, pagesBelow, pageBudget, budget }: GateOptions,
  /** Told each time a queued execution (a page or a large one) has left, e.g. to check the heap (heap-ceiling.ts). */
  afterQueued: () => void = () => undefined,
): ExecutionGate {
  const pages = lane(pageBudget, afterQueued);
  const large = lane(budget, afterQueued);
  const free = Promise.resolve(() => undefined);
  return {
    isLarge: (cost) => cost > pagesBelow,
    get waiting() {
      return pages.waiting + large.waiting;
    },
    get inUse() {
      return pages.inUse + large.inUse;
    },
    enter(cost) {
      if (cost <= freeBelow) return free;
      return cost <= pagesBelow ? pages.enter(cost) : large.enter(cost);
    },
  };
}
