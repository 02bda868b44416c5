// The summary report over GraphQL on real PostgreSQL: counts, range and its defaults, who may read it, statements.
import { describe, expect, it } from 'vitest';
import { createUser } from '../factories/accounts.js';
import { bookingIn, DECLINE, requestBooking, world } from '../factories/bookings.js';
import { createCar, sql } from '../factories/cars.js';
import { anonymous, asClient, asOps, asUser } from '../support/actors.js';
import { errorOf, useHarness } from '../support/harness.js';

const h = useHarness();

const SUMMARY = `query($from: DateTime, $to: DateTime) { summary(fromUtc: $from, toUtc: $to) {
  id fromUtc toUtc createdDateUtc lastModifiedDateUtc
  bookingsByState { pending approved declined expired cancelled inUse returned completed }
  users { active unverified } cars { listed unverified } bookingsInRange { created used completed } } }`;
type S = Record<string, any>;
const summary = async (vars: Record<string, unknown> = {}) =>
  (await h.ok<{ summary: S }>(asOps(), SUMMARY, vars)).summary;

describe('summary', () => {
  it('counts bookings by state, users and cars now, and bookings created, used and completed in the range', async () => {
    // 10:00 on the 1st: an unverified owner with a Listed verified car, a verified borrower, a suspended user.
    const w = await world(h);
    const suspended = await createUser(h);
    await sql(h, `update user_account set status = 'Suspended' where id = ?`, [suspended.id]);
    await createCar(h, w.owner.actor); // a Draft car whose verifications are not done
    await requestBooking(h, w, 24, 26); // Pending
    const declined = await requestBooking(h, w, 30, 32);
    await h.ok(w.owner.actor, DECLINE, { id: declined.id, input: { reason: 'Away' } });
    // Requested on the 1st; used, returned and completed on the 3rd (the factory moves the clock).
    await bookingIn(h, w, 'Completed', 48, 50);
    expect(h.clock.now().toISOString()).toBe('2026-07-03T09:50:00.000Z');

    const first = await summary({ from: '2026-07-01T00:00:00.000Z', to: '2026-07-02T00:00:00.000Z' });
    expect(first).toMatchObject({
      fromUtc: '2026-07-01T00:00:00.000Z',
      toUtc: '2026-07-02T00:00:00.000Z',
      bookingsByState: {
        pending: 1,
        approved: 0,
        declined: 1,
        expired: 0,
        cancelled: 0,
        inUse: 0,
        returned: 0,
        completed: 1,
      },
      users: { active: 2, unverified: 2 },
      cars: { listed: 1, unverified: 1 },
      bookingsInRange: { created: 3, used: 0, completed: 0 },
      createdDateUtc: '2026-07-03T09:50:00.000Z',
    });
    const third = await summary({ from: '2026-07-03T00:00:00.000Z', to: '2026-07-04T00:00:00.000Z' });
    expect(third.bookingsInRange).toEqual({ created: 0, used: 1, completed: 1 });
    // The range is half-open: an event exactly at toUtc falls in the next range.
    const upTo = await summary({ from: '2026-07-02T00:00:00.000Z', to: '2026-07-03T09:50:00.000Z' });
    expect(upTo.bookingsInRange).toEqual({ created: 0, used: 0, completed: 0 });
    // Verifying the owner makes them a verified borrower.
    await sql(h, `update verification set status = 'Verified' where subject_id = ?`, [w.owner.id]);
    expect((await summary()).users).toEqual({ active: 2, unverified: 1 });
    // An operator is active, but never counted as a borrower waiting for verification.
    const operator = await createUser(h);
    await sql(h, `update user_account set roles = '["ops"]' where id = ?`, [operator.id]);
    expect((await summary()).users).toEqual({ active: 3, unverified: 1 });
  });

  it('defaults to the last 30 days; one end alone keeps the other default; the same range is the same id', async () => {
    const d = await summary();
    expect(d.toUtc).toBe('2026-07-01T10:00:00.000Z');
    expect(d.fromUtc).toBe('2026-06-01T10:00:00.000Z');
    expect(d.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(d.bookingsByState.pending).toBe(0);
    expect(d.users).toEqual({ active: 0, unverified: 0 });
    const toOnly = await summary({ to: '2026-05-31T00:00:00.000Z' });
    expect(toOnly.fromUtc).toBe('2026-05-01T00:00:00.000Z');
    const fromOnly = await summary({ from: '2026-06-20T00:00:00.000Z' });
    expect(fromOnly.toUtc).toBe('2026-07-01T10:00:00.000Z');
    const again = await summary({ from: '2026-06-01T10:00:00.000Z', to: '2026-07-01T10:00:00.000Z' });
    expect(again.id).toBe(d.id);
    expect(fromOnly.id).not.toBe(d.id);
  });

  it('refuses a range that does not run forwards, and dates that are not UTC', async () => {
    const backwards = await h.run(asOps(), SUMMARY, {
      from: '2026-07-02T00:00:00.000Z',
      to: '2026-07-01T00:00:00.000Z',
    });
    expect(errorOf(backwards)).toMatchObject({ code: 'InvalidValue', field: 'fromUtc' });
    const empty = await h.run(asOps(), SUMMARY, {
      from: '2026-07-01T00:00:00.000Z',
      to: '2026-07-01T00:00:00.000Z',
    });
    expect(errorOf(empty).code).toBe('InvalidValue');
    // From after now with no end: the default end (now) would come first.
    const future = await h.run(asOps(), SUMMARY, { from: '2026-08-01T00:00:00.000Z' });
    expect(errorOf(future)).toMatchObject({ code: 'InvalidValue', field: 'fromUtc' });
    const offset = await h.run(asOps(), SUMMARY, { from: '2026-07-01T00:00:00+02:00' });
    expect(errorOf(offset).code).toBe('InvalidFormat');
  });

  it('is for ops and client applications with reports:read only', async () => {
    const user = await createUser(h);
    expect((await h.ok<{ summary: S }>(asClient(['reports:read']), SUMMARY)).summary.users.active).toBe(1);
    expect(errorOf(await h.run(asClient(['users:read', 'cars:read']), SUMMARY)).code).toBe('Forbidden');
    // A user holding every scope is still not an operator.
    expect(errorOf(await h.run(asUser(user.id), SUMMARY)).code).toBe('Forbidden');
    // An operator whose token lacks the `ops` scope acts as a user.
    const opsWithoutScope = { ...asOps(), scopes: ['reports:read' as const] };
    expect(errorOf(await h.run(opsWithoutScope, SUMMARY)).code).toBe('Forbidden');
    expect(errorOf(await h.run(anonymous, SUMMARY)).code).toBe('Unauthorized');
  });

  it('takes three SQL statements whatever the data', async () => {
    const w = await world(h);
    await requestBooking(h, w, 24, 26);
    h.sql.length = 0;
    await summary();
    expect(h.sql.filter((s) => /^\s*select/i.test(s))).toHaveLength(3);
  });
});
