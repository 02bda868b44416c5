// A background loop: runs a step while it reports more work, otherwise sleeps until woken or the poll
// interval passes. Wakes that arrive mid-step are not lost. A settle time lets the wakes of a burst (one per
// committed event) share one step.
export class Pump {
  readonly #step: () => Promise<boolean>;
  readonly #pollMs: number;
  readonly #onError: (err: unknown) => void;
  readonly #settleMs: number;
  #running = true;
  #woken = false;
  #release: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #loop: Promise<void>;

  constructor(step: () => Promise<boolean>, pollMs: number, onError: (err: unknown) => void, settleMs = 0) {
    this.#settleMs = settleMs;
    this.#step = step;
    this.#pollMs = pollMs;
    this.#onError = onError;
    this.#loop = this.#run();
  }

  async #run(): Promise<void> {
    while (this.#running) {
      this.#woken = false;
      let more = false;
      try {
        more = await this.#step();
      } catch (err) {
        this.#onError(err);
      }
      if (!more && !this.#woken && this.#running) {
        await this.#sleep();
        if (this.#woken && this.#running && this.#settleMs > 0)
          await new Promise((r) => setTimeout(r, this.#settleMs));
      }
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
