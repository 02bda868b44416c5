// Which instance answers the outbox's NOTIFYs: the one holding the relay's lead, a session-level advisory lock on a
// connection of its own. Every instance hears every NOTIFY, and when each looked at once, an event cost PostgreSQL
// one look per instance (a round trip carrying its car share's scope and the read) where one takes it: with five
// instances on one database that was about 2 ms of CPU per booking, more than the booking's own statements
// (test/bench S5, docs/performance.md). The others look at each poll instead, and try to take the lead there: an
// instance that stops, or whose connection drops, releases it with its session, and another leads within a poll.
import pg from 'pg';
import type { Logger } from '../shared/log.js';

/** The advisory lock (one bigint key; the transaction locks elsewhere take other keys). */
export const RELAY_LEAD_KEY = 727274667;

export interface RelayLead {
  /** Whether this instance leads, as last known. */
  readonly held: boolean;
  /** Tries to take the lead when not held (one statement); false while the database does not answer. */
  claim(): Promise<boolean>;
  close(): Promise<void>;
}

export function relayLead(databaseUrl: string, log: Logger): RelayLead {
  let client: pg.Client | undefined;
  let held = false;
  let closed = false;
  const drop = (c: pg.Client): void => {
    if (client === c) {
      client = undefined;
      held = false;
    }
    c.end().catch(() => undefined);
  };
  return {
    get held() {
      return held;
    },
    async claim() {
      if (held || closed) return held;
      let c = client;
      try {
        if (!c) {
          const fresh = new pg.Client({ connectionString: databaseUrl });
          fresh.on('error', (err) => {
            if (!closed && held) log.warn({ err }, 'outbox relay lead lost with its connection');
            drop(fresh);
          });
          c = client = fresh;
          await fresh.connect();
        }
        const r = await c.query<{ ok: boolean }>('select pg_try_advisory_lock($1) as ok', [RELAY_LEAD_KEY]);
        held = r.rows[0]?.ok === true && client === c && !closed;
      } catch {
        // Polls go on without the lead; the next one tries again on a new connection.
        if (c) drop(c);
      }
      return held;
    },
    async close() {
      closed = true;
      held = false;
      await client?.end().catch(() => undefined);
    },
  };
}
