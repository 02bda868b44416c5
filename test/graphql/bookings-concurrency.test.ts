// No double booking, ever (CONTRACT §6 free period): PostgreSQL's exclusion constraint holds the rule, and
// concurrent approvals through two instances leave exactly one Approved booking per contested period.
import pg from 'pg';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import {
  APPROVE,
  type B,
  bookingEvents,
  inHours,
  REQUEST,
  requestBooking,
  verifiedBorrower,
  type World,
  world,
} from '../factories/bookings.js';
import { sql } from '../factories/cars.js';
import { errorOf, useHarness } from '../support/harness.js';
import { waitForLockWait } from '../support/wait.js';

const h = useHarness();
// A second instance of the service (its own pool) on the same database; the first empties it before each test.
const h2 = useHarness({ resetEach: false });
let w: World;
beforeEach(async () => {
  w = await world(h, { maximumBookingMinutes: 20160 });
});

/** Pairs of the car's Approved/InUse bookings whose periods overlap: must always be none. */
async function doubleBookings(): Promise<number> {
  const [r] = await sql<{ n: string }>(
    h,
    `select count(*) as n from car_booking a join car_booking b on a.car_id = b.car_id and a.id < b.id
      where a.state in ('Approved', 'InUse') and b.state in ('Approved', 'InUse')
        and tstzrange(a.start_date_utc, a.end_date_utc, '[)') && tstzrange(b.start_date_utc, b.end_date_utc, '[)')`,
  );
  return Number(r!.n);
}

describe('concurrent approvals', () => {
  it('50 overlapping requests approved in parallel leave exactly one Approved, the rest 409 CarUnavailable; 20 rounds', async () => {
    const borrowers = [w.borrower, ...(await Promise.all([1, 2, 3, 4].map(() => verifiedBorrower(h))))];
    for (let round = 0; round < 20; round += 1) {
      const base = 24 + round * 10;
      // Every request covers [base + 0.75 h, base + 2 h): any two overlap.
      const requests = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          h.ok<{ requestBooking: B }>(borrowers[i % borrowers.length]!.actor, REQUEST, {
            carId: w.carId,
            input: {
              startDateUtc: inHours(h, base + (i % 4) * 0.25),
              endDateUtc: inHours(h, base + 2 + (i % 3) * 0.25),
            },
          }),
        ),
      );
      const ids = requests.map((r) => r.requestBooking.id as string);
      const results = await Promise.all(
        ids.map((id, i) => (i % 2 === 0 ? h : h2).run<{ approveBooking: B }>(w.owner.actor, APPROVE, { id })),
      );
      const approved = results.filter((r) => !r.errors).map((r) => r.data!.approveBooking);
      expect(approved).toHaveLength(1);
      const winner = approved[0]!;
      const refused = results.filter((r) => r.errors);
      expect(refused).toHaveLength(49);
      for (const r of refused) {
        expect(errorOf(r).code).toBe('CarUnavailable');
        expect(r.errors![0]!.extensions!.meta).toEqual({
          conflictStartDateUtc: winner.startDateUtc,
          conflictEndDateUtc: winner.endDateUtc,
        });
      }
      const [states] = await sql<{ approved: string; pending: string }>(
        h,
        `select count(*) filter (where state = 'Approved') as approved, count(*) filter (where state = 'Pending') as pending
           from car_booking where id in (${ids.map(() => '?').join(', ')})`,
        ids,
      );
      expect(states).toEqual({ approved: '1', pending: '49' });
    }
    expect(await doubleBookings()).toBe(0);
    expect((await bookingEvents(h)).filter((e) => e.name === 'carbooking_approve')).toHaveLength(20);
  }, 240_000);

  it('two auto-approved requests racing for one period: one Approved, one CarUnavailable', async () => {
    const car = await world(h, { autoApprove: true });
    const other = await verifiedBorrower(h);
    for (let round = 0; round < 10; round += 1) {
      const input = { startDateUtc: inHours(h, 24 + round * 5), endDateUtc: inHours(h, 26 + round * 5) };
      const [a, b] = await Promise.all([
        h.run(car.borrower.actor, REQUEST, { carId: car.carId, input }),
        h2.run(other.actor, REQUEST, { carId: car.carId, input }),
      ]);
      expect([a, b].filter((r) => !r.errors)).toHaveLength(1);
      expect(errorOf([a, b].find((r) => r.errors)!).code).toBe('CarUnavailable');
    }
    expect(await doubleBookings()).toBe(0);
  });
});

describe('the exclusion constraint', () => {
  it('refuses two overlapping Approved bookings written straight to the database; back-to-back is fine', async () => {
    const other = await verifiedBorrower(h);
    const a = await requestBooking(h, w, 24, 26);
    const b = await requestBooking(h, w, 25, 27, other);
    const c = await requestBooking(h, w, 26, 28, other);
    await sql(h, `update car_booking set state = 'Approved' where id = ?`, [a.id]);
    await expect(sql(h, `update car_booking set state = 'InUse' where id = ?`, [b.id])).rejects.toMatchObject(
      {
        code: '23P01',
      },
    );
    await sql(h, `update car_booking set state = 'Approved' where id = ?`, [c.id]);
    expect(await doubleBookings()).toBe(0);
  });

  it('turns a violation met by a writer that skipped the car lock into 409 CarUnavailable naming the conflict', async () => {
    const other = await verifiedBorrower(h);
    const mine = await requestBooking(h, w, 24, 26);
    const theirs = await requestBooking(h, w, 25, 27, other);
    const raw = new pg.Client({ connectionString: inject('databaseUrl') });
    await raw.connect();
    try {
      // An uncommitted approval the API's own check cannot see: its flush waits on the constraint, then fails.
      await raw.query('begin');
      await raw.query(`update car_booking set state = 'Approved' where id = $1`, [theirs.id]);
      const approving = h.run(w.owner.actor, APPROVE, { id: mine.id });
      await waitForLockWait(h.orm);
      await raw.query('commit');
      const r = await approving;
      expect(errorOf(r).code).toBe('CarUnavailable');
      expect(r.errors![0]!.extensions!.meta).toEqual({
        conflictStartDateUtc: theirs.startDateUtc,
        conflictEndDateUtc: theirs.endDateUtc,
      });
    } finally {
      await raw.end();
    }
    expect(await bookingEvents(h)).toEqual([]);
    expect(await doubleBookings()).toBe(0);
  });
});
