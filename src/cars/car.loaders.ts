// Cars by id, and whether users own any car, batched per request.
import { carShareIdOf } from '../db/car-share-condition.js';
import { placeholders, runSql } from '../db/rows.js';
import type { Read } from '../db/views.js';
import { defineLoader, rowsByUniqueKey } from '../graphql/loaders.js';
import { Car } from './car.entity.js';

/** Primed with views by the reads that embed (car-embeds.ts). */
export const carById = rowsByUniqueKey<Car, Read<Car>>('carById', Car, 'car', 'id', (c) => c.id);

/** UserAccount.isCarOwner: one statement for every account on the page (index on owner_id). */
export const isCarOwner = defineLoader<string, boolean>('isCarOwner', async (em, userIds) => {
  const rows = await runSql<{ owner_id: string }>(
    em,
    `select distinct owner_id from car where car_share_id = ? and owner_id in (${placeholders(userIds.length)})`,
    [carShareIdOf(em), ...userIds],
  );
  const owners = new Set(rows.map((r) => r.owner_id));
  return userIds.map((id) => owners.has(id));
});
