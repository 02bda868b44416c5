// Large GraphQL executions queue for a share of a fixed budget (CONTRACT §13 "Memory"): a weighted semaphore
// keyed on the document's cost, so a few large queries at once cannot hold the process's memory, while small
// requests (most of them: a REST page of 100) never wait behind them.
export interface ExecutionGate {
  /** Waits until an execution of this cost may run; call the returned function when it is done. */
  enter(cost: number): Promise<() => void>;
  /** Whether an execution of this cost is a large one (it waits for its share of the budget). */
  isLarge(cost: number): boolean;
  /** Executions waiting now, and the budget in use (for tests and metrics). */
  readonly waiting: number;
  readonly inUse: number;
}

export interface GateOptions {
  /** Executions costing at most this run at once, without waiting. */
  freeBelow: number;
  /** What large executions running together may cost in all; one larger than this runs alone. */
  budget: number;
}

export function createExecutionGate({ freeBelow, budget }: GateOptions): ExecutionGate {
  let inUse = 0;
  // First come, first served: a large execution at the head is not overtaken by smaller ones forever.
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
    isLarge: (cost) => cost > freeBelow,
    get waiting() {
      return queue.length;
    },
    get inUse() {
      return inUse;
    },
    enter(cost) {
      if (cost <= freeBelow) return Promise.resolve(() => undefined);
      const weight = Math.min(cost, budget);
      return new Promise((resolve) => {
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          inUse -= weight;
          admit();
        };
        queue.push({ weight, start: () => resolve(release) });
        admit();
      });
    },
  };
}
