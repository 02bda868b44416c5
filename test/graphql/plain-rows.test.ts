// Reads return plain rows (src/db/rows.ts) instead of entities: every property must carry the same JavaScript
// value hydration gives it (dates as Date, decimals as their declared type, nulls as null), for each entity the
// read path maps, and no entity may enter the identity map.
import type { EntityClass } from '@mikro-orm/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Profile } from '../../src/accounts/profile.entity.js';
import { UserAccount } from '../../src/accounts/user-account.entity.js';
import { CarBooking } from '../../src/bookings/car-booking.entity.js';
import { Car } from '../../src/cars/car.entity.js';
import { readRows } from '../../src/db/rows.js';
import { Rating } from '../../src/ratings/rating.entity.js';
import { Verification } from '../../src/verifications/verification.entity.js';
import { bookingIn, world } from '../factories/bookings.js';
import { bookingFacts, leaveFeedback } from '../factories/feedback.js';
import { createHarness, type Harness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());
beforeEach(async () => h.reset());

/** Each entity's rows read both ways: as entities through MikroORM and as plain rows. */
async function bothWays<T extends object>(entity: EntityClass<T>, table: string) {
  const em = h.orm.em.fork();
  const entities = (await em.find(entity, {}, { orderBy: { id: 'asc' } as never })) as T[];
  const plainEm = h.orm.em.fork();
  const plain = await readRows(plainEm, entity, `select * from ${table} order by id asc`, []);
  const props = em
    .getMetadata()
    .get(entity)
    .props.map((p) => p.name);
  return { entities, plain, props, identityMapSize: plainEm.getUnitOfWork().getIdentityMap().keys().length };
}

const cases = [
  [Car, 'car'],
  [UserAccount, 'user_account'],
  [Profile, 'profile'],
  [Verification, 'verification'],
  [Rating, 'rating'],
  [CarBooking, 'car_booking'],
] as const;

describe('plain rows on reads', () => {
  beforeEach(async () => {
    const w = await world(h);
    await bookingIn(h, w, 'Approved');
    const facts = bookingFacts(w.borrower.id, w.owner.id, { carId: w.carId });
    await leaveFeedback(h, w.borrower.actor, facts, { rating: 4 });
  });

  it.each(cases)('%o: every property equals the hydrated entity’s, type included', async (entity, table) => {
    const { entities, plain, props, identityMapSize } = await bothWays(entity as EntityClass<object>, table);
    expect(entities.length).toBeGreaterThan(0);
    expect(plain).toHaveLength(entities.length);
    for (const [i, e] of entities.entries()) {
      const p = plain[i] as Record<string, unknown>;
      for (const name of props) {
        const want = (e as Record<string, unknown>)[name];
        expect({ name, value: p[name] }).toStrictEqual({ name, value: want });
        expect(typeof p[name]).toBe(typeof want);
      }
    }
    expect(identityMapSize).toBe(0);
  });
});
