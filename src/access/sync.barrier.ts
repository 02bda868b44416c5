// The ordering guarantee of a LISTEN connection, used without running SQL: a bare protocol Sync message.
// PostgreSQL answers a Sync with ReadyForQuery, and a backend sends every notification queued for it before it
// reports ready; a notification whose transaction committed before the Sync was sent is therefore delivered (and
// handled: pg emits it as it is read) before the barrier resolves. Nothing is parsed, planned or executed.
import type pg from 'pg';

/** A pg Submittable: queued behind the connection's other work like any query, then sent as a lone Sync. */
class Sync implements pg.Submittable {
  readonly done: Promise<void>;
  #ok: () => void = () => undefined;
  #fail: (err: Error) => void = () => undefined;
  constructor() {
    this.done = new Promise<void>((ok, fail) => {
      this.#ok = ok;
      this.#fail = fail;
    });
  }
  submit(connection: pg.Connection): void {
    connection.sync();
  }
  handleReadyForQuery(): void {
    this.#ok();
  }
  handleError(err: Error): void {
    this.#fail(err);
  }
}

/** Resolves once every notification committed before the call has reached `client`'s listeners. */
export function syncBarrier(client: pg.Client): Promise<void> {
  const sync = new Sync();
  client.query(sync);
  return sync.done;
}

/**
 * One barrier per turn of the event loop for every caller: a caller shares the barrier queued behind the one in
 * flight, sent at the end of the turn, so it serves every lookup that began during the turn (requests read together
 * from many connections), not only the first of them, and it started after each of its callers called.
 */
export function coalescedPerTurn(barrier: () => Promise<void>): () => Promise<void> {
  let inFlight: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  return () => {
    if (queued) return queued;
    const next = (inFlight ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => new Promise<void>((ok) => setImmediate(ok)))
      .then(() => {
        queued = undefined;
        const p = barrier();
        inFlight = p;
        void p
          .catch(() => undefined)
          .finally(() => {
            if (inFlight === p) inFlight = undefined;
          });
        return p;
      });
    queued = next;
    return next;
  };
}
