// Where the rate limits' counts live: fixed windows in this process's memory (bounded, no sweep over every key),
// or in Redis (./ratelimit.redis.ts), several windows taken from at once, all or nothing: a request's
// own window and its car share's ceiling, an action's units.

/** One key's window: how many units it has used, and when it ends (epoch milliseconds). */
export interface MemoryWindow {
  used: number;
  endsAt: number;
}

/**
 * Fixed windows in memory. Windows are also queued in the order they began, which, every window having the same
 * length, is the order they end: ended windows leave from the queue's head as they are met, so no request walks
 * all the keys. (Not the map's own order: a Map deleted from its front keeps holes that its iterators walk again
 * until it is rehashed, which made each request cost as much as the keys seen.) At `maxKeys` the oldest window
 * is forgotten to make room (its key starts afresh): clients rotating addresses cannot grow memory without bound,
 * only shorten the window of the oldest key by flooding the table.
 */
export class MemoryWindows {
  readonly #windows = new Map<string, MemoryWindow & { key: string }>();
  #queue: (MemoryWindow & { key: string })[] = [];
  #head = 0;
  constructor(
    readonly windowMs: number,
    readonly maxKeys = 100_000,
  ) {}

  /** The key's current window, a fresh one when it had none or its window has ended. */
  window(key: string, now: number): MemoryWindow {
    while (this.#head < this.#queue.length && this.#queue[this.#head]!.endsAt <= now) this.#forgetOldest();
    const w = this.#windows.get(key);
    if (w !== undefined && w.endsAt > now) return w;
    while (this.#windows.size >= this.maxKeys && this.#head < this.#queue.length) this.#forgetOldest();
    const fresh = { key, used: 0, endsAt: now + this.windowMs };
    this.#windows.set(key, fresh);
    this.#queue.push(fresh);
    return fresh;
  }

  #forgetOldest(): void {
    const w = this.#queue[this.#head++]!;
    // A key whose window restarted is queued again; its old entry only leaves the queue.
    if (this.#windows.get(w.key) === w) this.#windows.delete(w.key);
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
  }
}

/** What taking units from several keys at once decided. */
export interface Taken {
  passed: boolean;
  /** Per key, in the order given: units left after this take (as they were when refused), and its window's end. */
  windows: { remaining: number; endsAt: number }[];
}

export interface Take {
  key: string;
  max: number;
  units: number;
}

/**
 * Takes units from several windows of one car share at once, all or nothing, wherever the counters live; the keys
 * given are the car share's own (`caller:sub:…`), placed in its namespace by the store (none without a car share).
 */
export type TakeUnits = (carShareId: string | undefined, takes: readonly Take[]) => Taken | Promise<Taken>;

/** Takes every unit or none from windows in this process's memory (in Redis: `./ratelimit.redis.ts`). */
export function takeInMemory(windows: MemoryWindows, takes: readonly Take[], now: number): Taken {
  const ws = takes.map((t) => windows.window(t.key, now));
  const passed = takes.every((t, i) => ws[i]!.used + t.units <= t.max);
  if (passed) for (const [i, t] of takes.entries()) ws[i]!.used += t.units;
  return {
    passed,
    windows: takes.map((t, i) => ({ remaining: Math.max(0, t.max - ws[i]!.used), endsAt: ws[i]!.endsAt })),
  };
}
