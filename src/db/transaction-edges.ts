// A car share transaction's edges in fewer round trips (CONTRACT §24, §25). Every transaction of the service starts
// with BEGIN and then its scope (`set local role …; set local carshare.car_share_id = …`, src/db/scope.ts), and a
// transaction that writes events ends with its NOTIFY and COMMIT (src/db/notify.ts): four round trips that carry no
// data. On each pooled connection, BEGIN is held back and sent with the scope as one simple query, and a NOTIFY
// statement is held back and sent with the COMMIT (dropped with a ROLLBACK). The statements, their order within the
// transaction and what commits are unchanged; a NOTIFY is delivered at commit wherever in the transaction it was
// sent. Anything else that follows a held BEGIN gets the BEGIN alone first.
import type pg from 'pg';

/** A scope as src/db/scope.ts sets it: a role, a car share, or both. */
const SCOPE =
  /^(?:set local role "[a-z_][a-z0-9_]*"(?:; )?)?(?:set local carshare\.car_share_id = '[0-9a-f-]{36}')?$/i;
const NOTIFY = /^select pg_notify\('[a-z_]+', '[^']*'\)$/;

interface Held {
  begin: string | undefined;
  /** A transaction is open (its BEGIN sent or held): only then is a NOTIFY held for its COMMIT. */
  open: boolean;
  notify: string[];
}

const done = (command: string): pg.QueryResult =>
  ({ command, rowCount: null, oid: 0, rows: [], fields: [] }) as unknown as pg.QueryResult;

const wrapped = new WeakSet<pg.PoolClient>();

/** Wraps a pooled client's `query` once: only bare SQL text without values is ever held or merged. */
export function mergeTransactionEdges(client: pg.PoolClient): void {
  if (wrapped.has(client)) return;
  wrapped.add(client);
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<pg.QueryResult>;
  const held: Held = { begin: undefined, open: false, notify: [] };
  const send = (text: string, statements: number) =>
    statements > 1 ? query({ text, statements }) : query(text);
  (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    const bare =
      typeof text === 'string' && (values === undefined || (Array.isArray(values) && !values.length));
    if (!bare || args.length > 2) return flushThen(() => query(...args));
    const sql = (text as string).trim();
    const lower = sql.toLowerCase();
    if (lower === 'begin' || lower.startsWith('start transaction')) {
      held.begin = sql;
      held.open = true;
      held.notify = [];
      return Promise.resolve(done('BEGIN'));
    }
    if (held.begin !== undefined && sql.startsWith('set local ') && SCOPE.test(sql)) {
      const begin = held.begin;
      held.begin = undefined;
      return send(`${begin}; ${sql}`, 1 + sql.split('; ').length);
    }
    if (held.open && held.begin === undefined && NOTIFY.test(sql)) {
      held.notify.push(sql);
      return Promise.resolve(done('SELECT'));
    }
    if (lower === 'commit' || lower === 'rollback') {
      held.open = false;
      const notify = held.notify.splice(0);
      if (lower === 'commit' && held.begin === undefined && notify.length)
        return send(`${notify.join('; ')}; ${sql}`, notify.length + 1);
    }
    return flushThen(() => query(...args));
  };
  /** A held BEGIN goes first when anything else is asked (held NOTIFYs wait for the COMMIT). */
  async function flushThen(next: () => Promise<pg.QueryResult>): Promise<pg.QueryResult> {
    if (held.begin !== undefined) {
      const begin = held.begin;
      held.begin = undefined;
      await query(begin);
    }
    return next();
  }
}
