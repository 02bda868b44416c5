// Group commit of attempt outcomes: attempts that finish while a batch is being written go into the next one,
// so a busy worker writes many outcomes per transaction and an idle one writes each at once.
import type { AttemptRecord } from './delivery.store.js';

const MAX_BATCH = 200;

interface Waiting {
  record: AttemptRecord;
  done: (mine: boolean) => void;
  fail: (err: unknown) => void;
}

export class AttemptRecorder {
  readonly #write: (batch: AttemptRecord[]) => Promise<Set<string>>;
  #queue: Waiting[] = [];
  #busy = false;

  constructor(write: (batch: AttemptRecord[]) => Promise<Set<string>>) {
    this.#write = write;
  }

  /** Resolves once the outcome is written: true while the lease was still held, false when it was lost. */
  record(record: AttemptRecord): Promise<boolean> {
    return new Promise((done, fail) => {
      this.#queue.push({ record, done, fail });
      if (this.#busy) return;
      this.#busy = true;
      void this.#drain();
    });
  }

  /** Runs until the queue is empty; `busy` drops in the same turn as the last look at the queue. */
  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) await this.#writeNext();
    } finally {
      this.#busy = false;
    }
  }

  async #writeNext(): Promise<void> {
    // One attempt per delivery in a batch: its attempt number is counted from the rows already written.
    const seen = new Set<string>();
    const batch: Waiting[] = [];
    const rest: Waiting[] = [];
    for (const w of this.#queue) {
      if (batch.length < MAX_BATCH && !seen.has(w.record.claimed.id)) {
        seen.add(w.record.claimed.id);
        batch.push(w);
      } else rest.push(w);
    }
    this.#queue = rest;
    try {
      const mine = await this.#write(batch.map((w) => w.record));
      for (const w of batch) w.done(mine.has(w.record.claimed.id));
    } catch (err) {
      for (const w of batch) w.fail(err);
    }
  }
}
