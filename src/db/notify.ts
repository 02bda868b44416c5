// NOTIFY sent by the service in the transaction of the change it announces (CONTRACT §25: no triggers on car
// share tables). NOTIFY is transactional: listeners hear it when that transaction commits, and never when it rolls
// back. Sent as a statement of its own that reads no table, so a distributed engine runs it on the node the
// listeners are connected to, never on a worker holding the rows.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from './orm.js';
import { deploymentSql } from './scope.js';

/**
 * What was sent in each open transaction (or savepoint), by its transaction context: PostgreSQL delivers one of
 * identical notifications sent in one transaction, so sending one again would only cost a round trip.
 */
const sent = new WeakMap<object, Set<string>>();

/**
 * Sends `payloads` on `channel` inside `em`'s transaction, delivered at its commit. Throws outside a transaction:
 * a notification sent on its own would commit before (or without) the change it announces.
 */
export async function notifyInTransaction(
  em: EntityManager,
  channel: string,
  payloads: string | readonly string[],
): Promise<void> {
  const trx = em.getTransactionContext();
  if (!trx)
    throw new Error(`NOTIFY ${channel} outside a transaction: it must commit with the change it announces`);
  let seen = sent.get(trx as object);
  if (!seen) {
    seen = new Set();
    sent.set(trx as object, seen);
  }
  const fresh: string[] = [];
  for (const p of typeof payloads === 'string' ? [payloads] : payloads) {
    const key = `${channel}\n${p}`;
    if (seen.has(key)) continue;
    seen.add(key);
    fresh.push(p);
  }
  if (fresh.length === 0) return;
  const conn = em.getConnection();
  if (fresh.length === 1) await conn.execute('select pg_notify(?, ?)', [channel, fresh[0]], 'run', trx);
  else
    await conn.execute(
      'select pg_notify(?, p) from jsonb_array_elements_text(?::jsonb) p',
      [channel, JSON.stringify(fresh)],
      'run',
      trx,
    );
}

/**
 * Sends a NOTIFY at once, in a statement of its own: news of a change already made where no transaction of ours holds
 * it (the REST cache's tag versions in Redis), heard by every instance's listening connection in commit order.
 */
export async function notifyNow(orm: Orm, channel: string, payload: string): Promise<void> {
  await deploymentSql(orm, 'select pg_notify(?, ?)', [channel, payload]);
}
