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
