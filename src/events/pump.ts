// A background loop: runs a step while it reports more work, otherwise sleeps until woken or the poll
// interval passes. Wakes that arrive mid-step are not lost: they run one more step, which takes everything that
// arrived meanwhile.
//
// A gap (`gapMs`) spaces steps under a stream of wakes: a step starts at least that long after the one before, so
// what arrives in between is taken by one step instead of one each. A wake after a quiet spell runs at once.
export class Pump {
  readonly #step: () => Promise<boolean>;
  readonly #pollMs: number;
  readonly #onError: (err: unknown) => void;
  readonly #gapMs: number;
  #running = true;
  #lastStart = Number.NEGATIVE_INFINITY;
  #woken = false;
  #release: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #loop: Promise<void>;

  constructor(step: () => Promise<boolean>, pollMs: number, onError: (err: unknown) => void, gapMs = 0) {
    this.#step = step;
    this.#pollMs = pollMs;
    this.#onError = onError;
    this.#gapMs = gapMs;
    this.#loop = this.#run();
  }

  async #run(): Promise<void> {
    while (this.#running) {
      const wait = this.#lastStart + this.#gapMs - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (!this.#running) break;
      this.#lastStart = performance.now();
      this.#woken = false;
      let more = false;
      try {
        more = await this.#step();
      } catch (err) {
        this.#onError(err);
      }
      if (!more && !this.#woken && this.#running) await this.#sleep();
    }
  }

  #sleep(): Promise<void> {
    return new Promise((resolve) => {
      this.#release = resolve;
      this.#timer = setTimeout(resolve, this.#pollMs);
    });
  }

  wake(): void {
    this.#woken = true;
    clearTimeout(this.#timer);
    this.#release?.();
    this.#release = undefined;
  }

  /** Stops after the current step. */
  async stop(): Promise<void> {
    this.#running = false;
    this.wake();
    await this.#loop;
  }
}
