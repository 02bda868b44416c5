// LISTEN for the NOTIFYs that say work has committed (outbox events, new deliveries), so workers start within
// milliseconds; polling stays as the fallback. Reconnects on its own after a dropped connection.
import pg from 'pg';
import type { Logger } from '../shared/log.js';

export interface Listener {
  close(): Promise<void>;
}

export function listenForWork(
  databaseUrl: string,
  handlers: Readonly<Record<string, () => void>>,
  log: Logger,
): Listener {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: databaseUrl });
    client = c;
    c.on('notification', (m) => handlers[m.channel]?.());
    c.on('error', (err) => {
      if (!closed) log.warn({ err }, 'webhook listener connection lost; reconnecting');
      reconnect(c);
    });
    try {
      await c.connect();
      for (const channel of Object.keys(handlers)) await c.query(`listen "${channel}"`);
      // Work may have committed while we were not listening.
      for (const h of Object.values(handlers)) h();
    } catch (err) {
      if (!closed) log.warn({ err }, 'webhook listener could not connect; retrying');
      reconnect(c);
    }
  };
  const reconnect = (c: pg.Client): void => {
    c.end().catch(() => undefined);
    if (closed || client !== c || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, 1000);
  };

  void connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
