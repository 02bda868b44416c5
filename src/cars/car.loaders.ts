// Cars by id, and whether users own any car, batched per request.
import { placeholders, readRows } from '../db/rows.js';
import { byKey, defineLoader } from '../graphql/loaders.js';
import { Car } from './car.entity.js';

/** Plain rows shaped like the entity (src/db/rows.ts): for reading, never for changing. */
export const carById = defineLoader<string, Car | null>('carById', async (em, ids) =>
  byKey(
    ids,
    await readRows(em, Car, `select * from car where id in (${placeholders(ids.length)})`, ids),
    (c) => c.id,
    null,
  ),
);

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
