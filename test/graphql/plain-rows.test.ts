// Reads return plain rows (src/db/rows.ts) instead of entities: every property must carry the same JavaScript
// value hydration gives it (dates as Date, decimals as their declared type, nulls as null), for each entity the
// read path maps, and no entity may enter the identity map. A view (src/db/views.ts) holds the same values, its
// timestamps as ISO text.
import { randomUUID } from 'node:crypto';
import type { EntityClass } from '@mikro-orm/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { Profile } from '../../src/accounts/profile.entity.js';
import { UserAccount } from '../../src/accounts/user-account.entity.js';
import { CarBooking } from '../../src/bookings/car-booking.entity.js';
import { Car } from '../../src/cars/car.entity.js';
import { readRows, runRead } from '../../src/db/rows.js';
import { viewJson } from '../../src/db/views.js';
import { Rating } from '../../src/ratings/rating.entity.js';
import { Verification } from '../../src/verifications/verification.entity.js';
import { bookingIn, world } from '../factories/bookings.js';
import { bookingFacts, leaveFeedback } from '../factories/feedback.js';
import { useHarness } from '../support/harness.js';
import { scoped } from '../support/scope.js';

const h = useHarness();

/** Each entity's rows read both ways: as entities through MikroORM and as plain rows. */
async function bothWays<T extends object>(entity: EntityClass<T>, table: string) {
  const em = scoped(h.orm);
  const entities = (await em.find(entity, {}, { orderBy: { id: 'asc' } as never })) as T[];
  const plainEm = scoped(h.orm);
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

/** The entities reads also take as views (src/db/views.ts): a car and what its answers embed. */
const viewCases = [
  [Car, 'car'],
  [Profile, 'profile'],
  [Verification, 'verification'],
  [Rating, 'rating'],
] as const;

/** A plain row as its view holds it: no car share, every Date as `toISOString`, a JSON value's own keys kept. */
function asView(row: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row)
      .filter(([k]) => k !== 'carShareId')
      .map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]),
  );
}

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

  it.each(viewCases)(
    '%o: its view (viewJson) holds the plain row but the car share, timestamps as ISO text',
    async (entity, table) => {
      const em = scoped(h.orm);
      const e = entity as EntityClass<object>;
      // Microseconds, which both reads must drop alike, and a decimal's scale, which json must keep (`12.50`).
      await em
        .getConnection()
        .execute(`update ${table} set created_date_utc = created_date_utc + interval '0.000987 seconds'`);
      const direct = await readRows(em, e, `select * from ${table} order by id asc`, []);
      const viaJson = await runRead<{ row: Record<string, unknown> }>(
        em,
        `select ${viewJson(em, e, 't')} as row from ${table} t order by id asc`,
        [],
      );
      expect(direct.length).toBeGreaterThan(0);
      expect(viaJson.map((r) => r.row)).toStrictEqual(direct.map(asView));
    },
  );

  it('keeps reading after a migration changes a table under a prepared statement', async () => {
    const conn = h.orm.em.fork().getConnection();
    await conn.execute('create table plain_probe (id uuid primary key, a text)');
    // A table of the test's own, read as the service reads: as the app role.
    await conn.execute('grant select on plain_probe to carshare_app');
    try {
      const id = randomUUID();
      await conn.execute('insert into plain_probe (id, a) values (?, ?)', [id, 'x']);
      const read = () =>
        runRead<Record<string, unknown>>(scoped(h.orm), 'select * from plain_probe where id = ?', [id]);
      // Every pooled connection gets the statement prepared, so the next read meets a stale plan.
      for (let i = 0; i < 4; i++) await Promise.all(Array.from({ length: 8 }, read));
      await conn.execute(`alter table plain_probe add column b text not null default 'y'`);
      for (let i = 0; i < 3; i++)
        expect(await Promise.all([read(), read()])).toEqual([
          [{ id, a: 'x', b: 'y' }],
          [{ id, a: 'x', b: 'y' }],
        ]);
    } finally {
      await conn.execute('drop table plain_probe');
    }
  });
});
