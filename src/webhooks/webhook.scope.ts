// The car share a webhook statement is for: the scope of the EntityManager it runs on (src/db/scope.ts). Every
// statement on the webhook tables names it (`car_share_id = ?`, CONTRACT §25: a distributed engine routes on it);
// row-level security is the backstop that makes a forgotten condition see nothing.
import type { EntityManager } from '@mikro-orm/postgresql';
import { carShareOf } from '../db/scope.js';

/** The car share `em` is scoped to; throws outside every scope, where no car share row can be read or written. */
export function scopeOf(em: EntityManager): string {
  const id = carShareOf(em);
  if (!id) throw new Error('webhook work outside a car share scope: use carShareEm or inCarShare');
  return id;
}

/**
 * One statement in `em`'s scope: in its transaction when it has one, else in a short one of its own (a statement
 * run on the connection outside a transaction would not carry the scope's SET LOCAL).
 */
export function runInScope<T>(em: EntityManager, sql: string, params: readonly unknown[]): Promise<T[]> {
  const tx = em.getTransactionContext();
  if (tx) return em.getConnection().execute<T[]>(sql, [...params], 'all', tx);
  scopeOf(em);
  return em.transactional((t) =>
    t.getConnection().execute<T[]>(sql, [...params], 'all', t.getTransactionContext()),
  );
}
