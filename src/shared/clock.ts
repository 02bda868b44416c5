// Time comes from a clock passed down, so tests can move it (expiry, timers).
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still until told to move; for tests and scripted runs. */
export class ManualClock implements Clock {
  #t: number;
  constructor(start: Date | string = new Date()) {
    this.#t = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#t);
  }
  set(t: Date | string): void {
    this.#t = new Date(t).getTime();
  }
  advance(ms: number): void {
    this.#t += ms;
  }
}
