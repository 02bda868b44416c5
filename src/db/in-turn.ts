// A connection's statements one after another, for a connection shared by callers that do not wait for each other
// (the listener's LISTEN, UNLISTEN and Sync barrier: src/events/listen.ts). pg 8 queues a query asked for while
// its connection runs another, and warns that pg 9 will refuse it; each caller here waits instead for the
// statement before it to be answered, whether it succeeded or failed.
import type pg from 'pg';

/** Where each connection's chain ends: what the next statement asked for on it waits for. */
const last = new WeakMap<pg.Client, Promise<unknown>>();

/** Runs `send` on `client` once every statement asked for on it before (through here) has been answered. */
export function inTurn<T>(client: pg.Client, send: () => Promise<T>): Promise<T> {
  const mine = (last.get(client) ?? Promise.resolve()).then(send);
  last.set(
    client,
    mine.catch(() => undefined),
  );
  return mine;
}
