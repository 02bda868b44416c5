// Test code's own database work runs in the default car share's scope, as the service's does (src/db/scope.ts):
// as the app role, with row-level security, so a fixture cannot reach what a request could not.
import type { EntityManager } from '@mikro-orm/postgresql';
import { inject } from 'vitest';
import type { Orm } from '../../src/db/orm.js';
import { carShareEm } from '../../src/db/scope.js';

/** The default car share's Id in the test database (made by its migration, read once by global-setup). */
export const defaultCarShareId = (): string => inject('defaultCarShareId');

/** An EntityManager scoped to the default car share (or the one given). */
export function scoped(orm: Orm, carShareId: string = defaultCarShareId()): EntityManager {
  return carShareEm(orm, carShareId);
}

/** One raw statement in a transaction of the default car share's scope (or the one given), as the app role. */
export function scopedSql<T>(
  orm: Orm,
  text: string,
  params: unknown[] = [],
  carShareId: string = defaultCarShareId(),
): Promise<T[]> {
  return carShareEm(orm, carShareId).transactional((em) =>
    em.getConnection().execute<T[]>(text, params, 'all', em.getTransactionContext()),
  );
}

/** A transaction's own statements (and the scope's SET LOCAL), which statement counts leave out. */
export const isTransactionControl = (sql: string): boolean =>
  /^\s*(begin|start transaction|commit|rollback|savepoint|release|set local)\b/i.test(sql);
