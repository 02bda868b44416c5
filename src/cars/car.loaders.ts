// Cars by id, and whether users own any car, batched per request.
import { defineLoader, rowsByUniqueKey } from '../graphql/loaders.js';
import { Car } from './car.entity.js';

export const carById = rowsByUniqueKey('carById', Car, 'car', 'id', (c) => c.id);

/** UserAccount.isCarOwner: one statement for every account on the page (index on owner_id). */
export const isCarOwner = defineLoader<string, boolean>('isCarOwner', async (em, userIds) => {
  const rows = await em
    .getConnection()
    .execute<{ owner_id: string }[]>(
      `select distinct owner_id from car where owner_id in (${userIds.map(() => '?').join(', ')})`,
      [...userIds],
      'all',
      em.getTransactionContext(),
    );
  const owners = new Set(rows.map((r) => r.owner_id));
  return userIds.map((id) => owners.has(id));
});
