// A car share transaction's edges in fewer round trips (CONTRACT §24, §25). Every transaction of the service starts
// with BEGIN and then its scope (`set local role …; set local carshare.car_share_id = …`, src/db/scope.ts), and a
// transaction that writes events ends with its NOTIFY and COMMIT (src/db/notify.ts): four round trips that carry no
// data. On each pooled connection, BEGIN and the scope are held back and sent with the transaction's first
// statement as one extended-protocol batch (src/db/scoped-statement.ts: BEGIN, the scope's `set_config(…, true)`,
// the statement, one Sync), and a NOTIFY statement is held back and sent with the COMMIT (dropped with a
// ROLLBACK). A transaction that ends before any statement sends nothing at all. The statements, their order within
// the transaction and what commits are unchanged; a NOTIFY is delivered at commit wherever in the transaction it
// was sent. Anything that cannot join the batch gets the BEGIN and the scope as one simple query first.
import type pg from 'pg';
import { ScopedStatement } from './scoped-statement.js';

/** A scope as src/db/scope.ts sets it: a role, a car share, or both. */
const SCOPE =
  /^(?:set local role "([a-z_][a-z0-9_]*)"(?:; )?)?(?:set local carshare\.car_share_id = '([0-9a-f-]{36})')?$/i;
const NOTIFY = /^select pg_notify\('[a-z_]+', '[^']*'\)$/;

interface Held {
  begin: string | undefined;
  /** The scope held with the BEGIN, as sent and as the batch sets it (a role is needed; no car share reads ''). */
  scope: { sql: string; role: string; carShareId: string } | undefined;
  /** A transaction is open (its BEGIN sent or held): only then is a NOTIFY held for its COMMIT. */
  open: boolean;
  notify: string[];
}

const done = (command: string): pg.QueryResult =>
  ({ command, rowCount: null, oid: 0, rows: [], fields: [] }) as unknown as pg.QueryResult;

const wrapped = new WeakSet<pg.PoolClient>();

/**
 * Wraps a pooled client's `query` once. Only bare SQL text without values is ever held; a statement with values
 * joins a held BEGIN and scope.
 */
export function mergeTransactionEdges(client: pg.PoolClient): void {
  if (wrapped.has(client)) return;
  wrapped.add(client);
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<pg.QueryResult>;
  const held: Held = { begin: undefined, scope: undefined, open: false, notify: [] };
  const send = (text: string, statements: number) =>
    statements > 1 ? query({ text, statements }) : query(text);
  (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    if (held.scope && args.length === 2 && Array.isArray(values)) {
      const statement = batchable(text);
      // With values (or prepared): no transaction control, which is sent as bare text.
      if (statement && (values.length || statement.name)) return firstStatement(statement, values);
    }
    const bare =
      typeof text === 'string' && (values === undefined || (Array.isArray(values) && !values.length));
    if (!bare || args.length > 2) return flushThen(() => query(...args));
    const sql = (text as string).trim();
    const lower = sql.toLowerCase();
    if (lower === 'begin' || lower.startsWith('start transaction')) {
      held.begin = sql;
      held.scope = undefined;
      held.open = true;
      held.notify = [];
      return Promise.resolve(done('BEGIN'));
    }
    if (held.begin !== undefined && held.scope === undefined && sql.startsWith('set local ')) {
      const m = SCOPE.exec(sql);
      if (m?.[1]) {
        held.scope = { sql, role: m[1], carShareId: m[2] ?? '' };
        return Promise.resolve(done('SET'));
      }
      if (m) {
        const begin = held.begin;
        held.begin = undefined;
        return send(`${begin}; ${sql}`, 1 + sql.split('; ').length);
      }
    }
    if (held.open && held.begin === undefined && NOTIFY.test(sql)) {
      held.notify.push(sql);
      return Promise.resolve(done('SELECT'));
    }
    if (lower === 'commit' || lower === 'rollback') {
      held.open = false;
      const notify = held.notify.splice(0);
      if (held.begin !== undefined) {
        // Nothing ran in it: there is nothing to open, scope or end.
        held.begin = undefined;
        held.scope = undefined;
        return Promise.resolve(done(lower.toUpperCase()));
      }
      if (lower === 'commit' && notify.length) return send(`${notify.join('; ')}; ${sql}`, notify.length + 1);
    }
    return flushThen(() => query(...args));
  };
  /** The transaction's first statement with its BEGIN and scope in one batch. */
  function firstStatement(
    statement: { text: string; name?: string },
    values: unknown[],
  ): Promise<pg.QueryResult> {
    const scope = held.scope!;
    const begin = held.begin!;
    held.begin = undefined;
    held.scope = undefined;
    const batch = new ScopedStatement({
      role: scope.role,
      carShareId: scope.carShareId,
      text: statement.text,
      // Its own name: pg tracks the names it prepares itself, the batch its own (src/db/scoped-statement.ts).
      name: statement.name ? `t${statement.name}` : undefined,
      values,
      begin,
    });
    query(batch);
    return batch.result;
  }
  /** A held BEGIN (and scope) goes first when anything else is asked (held NOTIFYs wait for the COMMIT). */
  async function flushThen(next: () => Promise<pg.QueryResult>): Promise<pg.QueryResult> {
    if (held.begin !== undefined) {
      const begin = held.begin;
      const scope = held.scope;
      held.begin = undefined;
      held.scope = undefined;
      if (scope) await send(`${begin}; ${scope.sql}`, 1 + scope.sql.split('; ').length);
      else await query(begin);
    }
    return next();
  }
}

/**
 * A statement that can be the batch's last: SQL text with `$n` values, or pg's `{ name, text }` and nothing else
 * (a row mode, types or a callback keep it out).
 */
function batchable(text: unknown): { text: string; name?: string } | undefined {
  if (typeof text === 'string') return { text };
  if (typeof text !== 'object' || text === null) return undefined;
  const { name, text: sql, ...rest } = text as { name?: unknown; text?: unknown };
  if (typeof sql !== 'string' || Object.keys(rest).length) return undefined;
  if (name !== undefined && typeof name !== 'string') return undefined;
  return name ? { text: sql, name } : { text: sql };
}
