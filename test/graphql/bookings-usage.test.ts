// Use, extend, return and complete (CONTRACT §6): each allowed actor, each guard, the exact events; and every
// transition the table does not list refused with 409 and the current state.
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  APPROVE,
  type B,
  bookingEvents,
  bookingIn,
  CANCEL,
  COMPLETE,
  DECLINE,
  EXTEND,
  expectedPayload,
  inHours,
  RETURN,
  requestBooking,
  USE,
  verifiedBorrower,
  type World,
  world,
} from '../factories/bookings.js';
import { CREATE_UNAVAILABILITY, sql } from '../factories/cars.js';
import { asOps, asUser } from '../support/actors.js';
import { errorOf, type GqlResult, useHarness } from '../support/harness.js';

let w: World;
const h = useHarness();
beforeEach(async () => {
  w = await world(h, { maximumBookingMinutes: 600 });
});

const meta = (r: GqlResult) => r.errors?.[0]?.extensions?.meta;
const at = (iso: string) => h.clock.set(iso);
// Bookings below run 2026-07-02 10:00–12:00 (24 h to 26 h after the harness's now).
const START = '2026-07-02T10:00:00.000Z';

describe('useBooking', () => {
  it('by the borrower from start − 15 minutes: Approved → InUse, raising carbooking_use', async () => {
    const a = await bookingIn(h, w, 'Approved');
    at('2026-07-02T09:45:00.000Z');
    const b = (await h.ok<{ useBooking: B }>(w.borrower.actor, USE, { id: a.id })).useBooking;
    expect(b).toMatchObject({ state: 'InUse', usedDateUtc: '2026-07-02T09:45:00.000Z' });
    const events = await bookingEvents(h);
    expect(events.at(-1)).toEqual({
      name: 'carbooking_use',
      payload: expectedPayload('carbooking_use', b, '2026-07-02T09:45:00.000Z'),
      audience: [w.borrower.id, w.owner.id],
    });
  });

  it('is OutsideUseWindow before start − 15 minutes and from end − 15 minutes', async () => {
    const a = await bookingIn(h, w, 'Approved');
    at('2026-07-02T09:44:59.999Z');
    const early = await h.run(w.borrower.actor, USE, { id: a.id });
    expect(errorOf(early).code).toBe('RuleViolation');
    // The refusal says when the window opens and closes, in the message and in meta.
    const window = {
      rule: 'OutsideUseWindow',
      opensDateUtc: '2026-07-02T09:45:00.000Z',
      closesDateUtc: '2026-07-02T11:45:00.000Z',
    };
    expect(meta(early)).toEqual(window);
    expect(errorOf(early).message).toContain('from 2026-07-02T09:45:00.000Z until 2026-07-02T11:45:00.000Z');
    at('2026-07-02T11:45:00.000Z');
    expect(meta(await h.run(w.borrower.actor, USE, { id: a.id }))).toEqual(window);
    expect((await bookingEvents(h)).map((e) => e.name)).toEqual(['carbooking_approve']);
  });

  it('needs the borrower still verified: BorrowerNotVerified', async () => {
    const a = await bookingIn(h, w, 'Approved');
    await sql(
      h,
      `update verification set status = 'Expired' where subject_id = ? and kind = 'DriversLicense'`,
      [w.borrower.id],
    );
    at(START);
    expect(meta(await h.run(w.borrower.actor, USE, { id: a.id }))).toEqual({ rule: 'BorrowerNotVerified' });
  });

  it('refuses the owner and ops (403: only the borrower uses), a stranger (404), a Pending request (409)', async () => {
    const a = await bookingIn(h, w, 'Approved');
    at(START);
    expect(errorOf(await h.run(w.owner.actor, USE, { id: a.id })).code).toBe('Forbidden');
    expect(errorOf(await h.run(asOps(), USE, { id: a.id })).code).toBe('Forbidden');
    expect(errorOf(await h.run(asUser(randomUUID()), USE, { id: a.id })).code).toBe('NotFound');
    const p = await requestBooking(h, w, 30, 32);
    const r = await h.run(w.borrower.actor, USE, { id: p.id });
    expect(errorOf(r).code).toBe('InvalidStateTransition');
    expect(meta(r)).toEqual({ state: 'Pending' });
  });
});

describe('extendBooking', () => {
  const extend = (id: string, endDateUtc: string, actor = w.borrower.actor) =>
    h.run<{ extendBooking: B }>(actor, EXTEND, { id, input: { endDateUtc } });

  it.each([
    ['Approved', 'longer', '2026-07-02T13:30:00.000Z', '43.75'],
    ['Approved', 'shorter', '2026-07-02T11:00:00.000Z', '12.50'],
    ['InUse', 'longer', '2026-07-02T14:00:00.000Z', '50.00'],
  ] as const)('by the borrower, %s, %s: a new end and carbooking_extend', async (state, _, end, cost) => {
    const a = await bookingIn(h, w, state);
    const r = await extend(a.id, end);
    const b = r.data!.extendBooking;
    expect(b).toMatchObject({ state, endDateUtc: end, estimatedCost: { amount: cost, currency: 'USD' } });
    const last = (await bookingEvents(h)).at(-1)!;
    expect(last).toEqual({
      name: 'carbooking_extend',
      payload: expectedPayload('carbooking_extend', b, h.clock.now().toISOString()),
      audience: [w.borrower.id, w.owner.id],
    });
  });

  it('refuses extending into another booking (409 CarUnavailable naming it) or an unavailability', async () => {
    const other = await verifiedBorrower(h);
    const a = await bookingIn(h, w, 'Approved');
    const next = await requestBooking(h, w, 27, 29, other);
    await h.ok(w.owner.actor, APPROVE, { id: next.id });
    const r = await extend(a.id, '2026-07-02T13:30:00.000Z');
    expect(errorOf(r).code).toBe('CarUnavailable');
    expect(meta(r)).toEqual({ conflictStartDateUtc: next.startDateUtc, conflictEndDateUtc: next.endDateUtc });
    // Up to the next booking's start is fine (half-open periods).
    expect((await extend(a.id, next.startDateUtc)).errors).toBeUndefined();

    await h.ok(w.owner.actor, CREATE_UNAVAILABILITY, {
      carId: w.carId,
      input: { startDateUtc: inHours(h, 48), endDateUtc: inHours(h, 50) },
    });
    const later = await bookingIn(h, w, 'Approved', 45, 47);
    const u = await extend(later.id, inHours(h, 49));
    expect(meta(u)).toEqual({ conflictStartDateUtc: inHours(h, 48), conflictEndDateUtc: inHours(h, 50) });
  });

  it('keeps within the car maximum (DurationOutOfRange), after the start and now (InvalidValue)', async () => {
    const a = await bookingIn(h, w, 'Approved');
    expect(meta(await extend(a.id, '2026-07-02T20:00:01.000Z'))).toEqual({ rule: 'DurationOutOfRange' });
    expect(errorOf(await extend(a.id, START))).toMatchObject({ code: 'InvalidValue', field: 'endDateUtc' });
    at('2026-07-02T10:30:00.000Z');
    await h.ok(w.borrower.actor, USE, { id: a.id });
    expect(errorOf(await extend(a.id, '2026-07-02T10:20:00.000Z'))).toMatchObject({
      code: 'InvalidValue',
      field: 'endDateUtc',
    });
    expect((await bookingEvents(h)).map((e) => e.name)).toEqual(['carbooking_approve', 'carbooking_use']);
  });

  it('refuses the owner and ops (403), a stranger (404), a Pending or Returned booking (409)', async () => {
    const a = await bookingIn(h, w, 'Approved');
    const end = '2026-07-02T13:00:00.000Z';
    expect(errorOf(await extend(a.id, end, w.owner.actor)).code).toBe('Forbidden');
    expect(errorOf(await extend(a.id, end, asOps())).code).toBe('Forbidden');
    expect(errorOf(await extend(a.id, end, asUser(randomUUID()))).code).toBe('NotFound');
    const p = await requestBooking(h, w, 30, 32);
    expect(meta(await extend(p.id, inHours(h, 33)))).toEqual({ state: 'Pending' });
    const r = await bookingIn(h, w, 'Returned', 50, 52);
    expect(meta(await extend(r.id, inHours(h, 3)))).toEqual({ state: 'Returned' });
  });
});

describe('returnBooking and completeBooking', () => {
  it.each([
    ['the borrower', () => w.borrower.actor],
    ['the owner (forced)', () => w.owner.actor],
    ['ops (forced)', () => asOps()],
  ])('return by %s: InUse → Returned, raising carbooking_return', async (_, actor) => {
    const u = await bookingIn(h, w, 'InUse');
    h.clock.advance(3_600_000);
    const b = (await h.ok<{ returnBooking: B }>(actor(), RETURN, { id: u.id })).returnBooking;
    expect(b).toMatchObject({ state: 'Returned', returnedDateUtc: '2026-07-02T10:50:00.000Z' });
    expect((await bookingEvents(h)).at(-1)).toEqual({
      name: 'carbooking_return',
      payload: expectedPayload('carbooking_return', b, '2026-07-02T10:50:00.000Z'),
      audience: [w.borrower.id, w.owner.id],
    });
  });

  it.each([
    ['the owner', () => w.owner.actor],
    ['ops', () => asOps()],
  ])('complete by %s: Returned → Completed, raising carbooking_complete', async (_, actor) => {
    const r = await bookingIn(h, w, 'Returned');
    const b = (await h.ok<{ completeBooking: B }>(actor(), COMPLETE, { id: r.id })).completeBooking;
    expect(b).toMatchObject({
      state: 'Completed',
      isNoShow: false,
      completedDateUtc: h.clock.now().toISOString(),
    });
    expect((await bookingEvents(h)).at(-1)).toEqual({
      name: 'carbooking_complete',
      payload: expectedPayload('carbooking_complete', b, h.clock.now().toISOString()),
      audience: [w.borrower.id, w.owner.id],
    });
  });

  it('refuses the borrower completing (403), returning an Approved booking (409), completing an InUse one (409)', async () => {
    const r = await bookingIn(h, w, 'Returned');
    expect(errorOf(await h.run(w.borrower.actor, COMPLETE, { id: r.id })).code).toBe('Forbidden');
    const a = await bookingIn(h, w, 'Approved', 40, 42);
    expect(meta(await h.run(w.borrower.actor, RETURN, { id: a.id }))).toEqual({ state: 'Approved' });
    const u = await bookingIn(h, w, 'InUse', 60, 62);
    expect(meta(await h.run(w.owner.actor, COMPLETE, { id: u.id }))).toEqual({ state: 'InUse' });
  });
});

describe('transitions the table does not list', () => {
  const all = (id: string) =>
    [
      [w.owner.actor, APPROVE, { id }],
      [w.owner.actor, DECLINE, { id }],
      [w.borrower.actor, CANCEL, { id, input: { reason: 'x' } }],
      [w.borrower.actor, USE, { id }],
      [w.borrower.actor, EXTEND, { id, input: { endDateUtc: '2026-07-05T10:00:00.000Z' } }],
      [w.borrower.actor, RETURN, { id }],
      [w.owner.actor, COMPLETE, { id }],
    ] as const;

  it('are 409 InvalidStateTransition with the state, from every terminal state, recording nothing', async () => {
    const completed = await bookingIn(h, w, 'Completed');
    const declined = await requestBooking(h, w, 30, 32);
    await h.ok(w.owner.actor, DECLINE, { id: declined.id });
    const cancelled = await requestBooking(h, w, 34, 36);
    await h.ok(w.borrower.actor, CANCEL, { id: cancelled.id, input: { reason: 'no' } });
    const expired = await requestBooking(h, w, 38, 40);
    await sql(h, `update car_booking set state = 'Expired' where id = ?`, [expired.id]);
    const before = await bookingEvents(h);
    for (const [b, state] of [
      [completed, 'Completed'],
      [declined, 'Declined'],
      [cancelled, 'Cancelled'],
      [expired, 'Expired'],
    ] as const)
      for (const [actor, op, vars] of all(b.id)) {
        const r = await h.run(actor, op, vars);
        expect(errorOf(r).code).toBe('InvalidStateTransition');
        expect(meta(r)).toEqual({ state: state });
      }
    expect(await bookingEvents(h)).toEqual(before);
  });
});
