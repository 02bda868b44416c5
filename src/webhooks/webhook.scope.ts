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
