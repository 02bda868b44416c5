// A lead among the instances on one database: a session-level advisory lock held on a connection of its own, which
// reads no table. Whoever holds it leads until its process stops or its connection drops (PostgreSQL releases the
// lock with the session); the others try again when they choose to (the outbox relay: at each poll, relay.ts).
import pg from 'pg';
import type { Logger } from '../shared/log.js';

export interface SessionLead {
  /** Whether this instance leads, as last known. */
  readonly held: boolean;
  /** Tries to take the lead when not held (one statement); false while the database does not answer. */
  claim(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * `key`: the advisory lock's one bigint key (the transaction locks elsewhere take other keys); `what` names it in
 * logs.
 */
export function sessionLead(databaseUrl: string, key: number, what: string, log: Logger): SessionLead {
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
            if (!closed && held) log.warn({ err }, `${what}: lead lost with its connection`);
            drop(fresh);
          });
          c = client = fresh;
          await fresh.connect();
        }
        const r = await c.query<{ ok: boolean }>('select pg_try_advisory_lock($1) as ok', [key]);
        held = r.rows[0]?.ok === true && client === c && !closed;
      } catch {
        // Without the lead for now; the next try is on a new connection.
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
