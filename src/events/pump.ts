// A background loop: runs a step while it reports more work, otherwise sleeps until woken or the poll
// interval passes. Wakes that arrive mid-step are not lost: they run one more step, which takes everything that
// arrived meanwhile.
export class Pump {
  readonly #step: () => Promise<boolean>;
  readonly #pollMs: number;
  readonly #onError: (err: unknown) => void;
  #running = true;
  #woken = false;
  #release: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #loop: Promise<void>;

  constructor(step: () => Promise<boolean>, pollMs: number, onError: (err: unknown) => void) {
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
