// The system's transitions (CONTRACT §6): expire, no-show and auto-complete fire at their time, once, and once
// only even with two scheduler instances (two connection pools) sweeping one database at the same moment.
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { defaultBookingPolicy } from '../../src/bookings/booking.policy.js';
import { runDueBookingTimers, sweepBookingTimers } from '../../src/bookings/booking.timers.js';
import { type Orm, openOrm } from '../../src/db/orm.js';
import { entities } from '../../src/modules.js';
import {
  type B,
  BOOKING,
  bookingEvents,
  bookingIn,
  bookingRow,
  expectedPayload,
  requestBooking,
  seedBookings,
  type World,
  world,
} from '../factories/bookings.js';
import { useHarness } from '../support/harness.js';
import { scoped } from '../support/scope.js';

const h = useHarness();
let other: Orm;
let w: World;
beforeAll(async () => {
  // A second instance: its own connection pool on the same database.
  other = await openOrm(inject('databaseUrl'), entities as never, { pool: 5 });
});
afterAll(async () => {
  await other.close(true);
});
beforeEach(async () => {
  w = await world(h);
});

const sweep = (orm: Orm = h.orm, batch = 100) =>
  sweepBookingTimers(orm, h.clock, defaultBookingPolicy, batch);
const none = { expired: 0, noShows: 0, autoCompleted: 0 };
const get = async (id: string) => (await h.ok<{ booking: B }>(w.borrower.actor, BOOKING, { id })).booking;

describe('expire', () => {
  it('an undecided request at start − 15 minutes: Pending → Expired, once, with no event', async () => {
    const p = await requestBooking(h, w, 24, 26);
    h.clock.set('2026-07-02T09:44:59.999Z');
    expect(await sweep()).toEqual(none);
    h.clock.set('2026-07-02T09:45:00.000Z');
    expect(await sweep()).toEqual({ ...none, expired: 1 });
    expect(await get(p.id)).toMatchObject({ state: 'Expired', expiredDateUtc: '2026-07-02T09:45:00.000Z' });
    h.clock.advance(86_400_000);
    expect(await sweep()).toEqual(none);
    expect(await bookingEvents(h)).toEqual([]);
  });
});

describe('no-show', () => {
  it('an Approved booking not used by end − 15 minutes: → Completed with IsNoShow, once, raising carbooking_complete', async () => {
    const a = await bookingIn(h, w, 'Approved', 24, 26);
    h.clock.set('2026-07-02T11:44:59.999Z');
    expect(await sweep()).toEqual(none);
    h.clock.set('2026-07-02T11:45:00.000Z');
    expect(await sweep()).toEqual({ ...none, noShows: 1 });
    const b = await get(a.id);
    expect(b).toMatchObject({
      state: 'Completed',
      isNoShow: true,
      completedDateUtc: '2026-07-02T11:45:00.000Z',
    });
    expect(await sweep()).toEqual(none);
    const events = await bookingEvents(h);
    expect(events.map((e) => e.name)).toEqual(['carbooking_approve', 'carbooking_complete']);
    expect(events[1]).toEqual({
      name: 'carbooking_complete',
      payload: expectedPayload('carbooking_complete', b, '2026-07-02T11:45:00.000Z'),
      audience: [w.borrower.id, w.owner.id],
    });
  });

  it('leaves an InUse booking alone past its end (overdue is not returned by the system)', async () => {
    const u = await bookingIn(h, w, 'InUse', 24, 26);
    h.clock.set('2026-07-05T00:00:00.000Z');
    expect(await sweep()).toEqual(none);
    expect((await get(u.id)).state).toBe('InUse');
  });
});

describe('auto-complete', () => {
  it('a Returned booking 72 hours after return: → Completed, once, raising carbooking_complete', async () => {
    const r = await bookingIn(h, w, 'Returned', 24, 26);
    const returned = new Date(r.returnedDateUtc).getTime();
    h.clock.set(new Date(returned + 72 * 3_600_000 - 1));
    expect(await sweep()).toEqual(none);
    h.clock.set(new Date(returned + 72 * 3_600_000));
    expect(await sweep()).toEqual({ ...none, autoCompleted: 1 });
    const b = await get(r.id);
    expect(b).toMatchObject({ state: 'Completed', isNoShow: false });
    expect(await sweep()).toEqual(none);
    const completes = (await bookingEvents(h)).filter((e) => e.name === 'carbooking_complete');
    expect(completes).toEqual([
      {
        name: 'carbooking_complete',
        payload: expectedPayload('carbooking_complete', b, h.clock.now().toISOString()),
        audience: [w.borrower.id, w.owner.id],
      },
    ]);
  });
});

describe('two scheduler instances on one database', () => {
  it('skip what the other has claimed: a sweep running while another holds its batch moves nothing', async () => {
    const ids = await seedBookings(h, w, 10, 'Approved', '2026-06-20T00:00:00.000Z');
    const results = await scoped(h.orm).transactional(async (em) => {
      const mine = await runDueBookingTimers({ em, clock: h.clock }, defaultBookingPolicy, 1000);
      // The first instance has claimed every due row and not committed yet: the second finds none free.
      const theirs = await sweep(other);
      return { mine, theirs };
    });
    expect(results.mine).toEqual({ ...none, noShows: 10 });
    expect(results.theirs).toEqual(none);
    expect(await sweep(other)).toEqual(none);
    const completes = (await bookingEvents(h)).filter((e) => e.name === 'carbooking_complete');
    expect(completes.map((e) => e.payload.Id).sort()).toEqual([...ids].sort());
  });

  it('fire each timer exactly once when both sweep at the same moment, in small batches, repeatedly', async () => {
    for (let round = 0; round < 5; round += 1) {
      await h.reset();
      w = await world(h);
      const pending = await seedBookings(h, w, 30, 'Pending', '2026-06-01T00:00:00.000Z');
      const approved = await seedBookings(h, w, 30, 'Approved', '2026-06-10T00:00:00.000Z');
      const returned = await seedBookings(h, w, 30, 'Returned', '2026-06-20T00:00:00.000Z');
      const runs = await Promise.all([sweep(h.orm, 4), sweep(other, 4), sweep(h.orm, 7), sweep(other, 3)]);
      const sum = runs.reduce(
        (t, r) => ({
          expired: t.expired + r.expired,
          noShows: t.noShows + r.noShows,
          autoCompleted: t.autoCompleted + r.autoCompleted,
        }),
        none,
      );
      expect(sum).toEqual({ expired: 30, noShows: 30, autoCompleted: 30 });
      const completes = (await bookingEvents(h)).map((e) => e.payload.Id as string);
      expect(completes).toHaveLength(60);
      expect(new Set(completes)).toEqual(new Set([...approved, ...returned]));
      for (const id of pending) expect((await bookingRow(h, id)).state).toBe('Expired');
      for (const id of [...approved, ...returned]) expect((await bookingRow(h, id)).state).toBe('Completed');
    }
  });
});
