// LISTEN for the NOTIFYs that say work has committed (outbox events, new deliveries) or a subscription changed,
// so workers start within milliseconds and caches drop what changed; polling stays as the fallback. Reconnects
// on its own after a dropped connection.
import pg from 'pg';
import { coalescedPerTurn, syncBarrier } from '../access/sync.barrier.js';
import { inTurn } from '../db/in-turn.js';
import type { Logger } from '../shared/log.js';

export interface Listener {
  /**
   * Resolves once every NOTIFY committed before the call has been handled; rejects while not listening. Callers in
   * one turn of the event loop share one barrier.
   */
  sync(): Promise<void>;
  /** True while connected and listening: announcements sent now are heard (until the connection is lost). */
  listening(): boolean;
  /**
   * Hears one more channel on this connection (LISTEN now when connected, and after each reconnection); the
   * handler is called at once without a payload, as after a connection. Returns what stops hearing it (UNLISTEN).
   */
  hear(channel: string, handler: NotifyHandler): () => void;
  close(): Promise<void>;
}

/** Called with the payload of each NOTIFY, and without one after (re)connecting: anything may have changed. */
export type NotifyHandler = (payload?: string) => void;

/**
 * One listening connection for the channels given and those added later (`hear`). An instance keeps one: PostgreSQL
 * wakes every listening connection of a database at each NOTIFY, whatever its channels, so each connection more
 * costs every announcement a wake-up (bench S5).
 */
export function listenForWork(
  databaseUrl: string,
  given: Readonly<Record<string, NotifyHandler>>,
  log: Logger,
): Listener {
  const handlers: Record<string, NotifyHandler> = { ...given };
  let client: pg.Client | undefined;
  let listening: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: databaseUrl });
    client = c;
    c.on('notification', (m) => handlers[m.channel]?.(m.payload ?? ''));
    c.on('error', (err) => {
      if (!closed) log.warn({ err }, 'notification listener connection lost; reconnecting');
      reconnect(c);
    });
    try {
      await c.connect();
      // Channels heard while this ran (`hear` before `listening` is set) are listened on too.
      const listened = new Set<string>();
      for (let more = Object.keys(handlers); more.length > 0; ) {
        for (const channel of more) {
          await inTurn(c, () => c.query(`listen "${channel}"`));
          listened.add(channel);
        }
        more = Object.keys(handlers).filter((channel) => !listened.has(channel));
      }
      listening = c;
      // Work may have committed while we were not listening.
      for (const h of Object.values(handlers)) h();
    } catch (err) {
      if (!closed) log.warn({ err }, 'notification listener could not connect; retrying');
      reconnect(c);
    }
  };
  const reconnect = (c: pg.Client): void => {
    if (listening === c) listening = undefined;
    c.end().catch(() => undefined);
    if (closed || client !== c || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, 1000);
  };

  void connect();
  return {
    // PostgreSQL sends the notifications pending for a connection before it answers on it: a bare protocol Sync,
    // no statement (src/access/sync.barrier.ts). Like every statement on this connection, it is sent in turn with
    // the LISTEN and UNLISTEN that `hear` and its stop send whenever they are called (src/db/in-turn.ts).
    sync: coalescedPerTurn(async () => {
      const c = listening;
      if (!c) throw new Error('not listening');
      await inTurn(c, () => syncBarrier(c));
    }),
    listening: () => listening !== undefined && !closed,
    hear(channel, handler) {
      handlers[channel] = handler;
      const c = listening;
      // Not connected yet (or reconnecting): `connect` listens on every channel, this one included.
      if (c)
        inTurn(c, () => c.query(`listen "${channel}"`)).then(
          () => handler(),
          (err: unknown) => log.warn({ err, channel }, 'could not listen; the poll stays the fallback'),
        );
      return () => {
        if (handlers[channel] !== handler) return;
        delete handlers[channel];
        // Heard no more, nor forwarded: PostgreSQL sends a connection only the notifications of its channels.
        const c = listening;
        if (!c || closed) return;
        inTurn(c, () => c.query(`unlisten "${channel}"`)).catch((err: unknown) => {
          // A connection closing, or dropped and being replaced, listens on nothing any more.
          if (!closed && listening === c) log.warn({ err, channel }, 'could not stop listening');
        });
      };
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
