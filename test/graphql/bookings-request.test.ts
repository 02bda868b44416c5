// Requesting a booking (CONTRACT §6 request): who may, the guards in order, auto-approval, the free period.
import { describe, expect, it } from 'vitest';
import { composeModules } from '../../src/modules.js';
import { createUser } from '../factories/accounts.js';
import {
  APPROVE,
  type B,
  bookableCar,
  bookingEvents,
  bookingRow,
  expectedPayload,
  inHours,
  REQUEST,
  requestBooking,
  verifiedBorrower,
  type World,
  world,
} from '../factories/bookings.js';
import { CREATE_UNAVAILABILITY, sql, UNLIST_CAR } from '../factories/cars.js';
import { anonymous, asClient, asOps, asUser, scopesWithout } from '../support/actors.js';
import { errorOf, useHarness } from '../support/harness.js';

const h = useHarness();

const ask = (w: World, startH: number, endH: number, extra: Record<string, unknown> = {}, who = w.borrower) =>
  h.run<{ requestBooking: B }>(who.actor, REQUEST, {
    carId: w.carId,
    input: { startDateUtc: inHours(h, startH), endDateUtc: inHours(h, endH), ...extra },
  });

const meta = (r: { errors?: { extensions?: { meta?: Record<string, unknown> } }[] }) =>
  r.errors?.[0]?.extensions?.meta;

async function bookingCount(): Promise<number> {
  const [r] = await sql<{ n: string }>(h, 'select count(*) as n from car_booking');
  return Number(r!.n);
}

describe('requestBooking', () => {
  it('makes a Pending request with a random reference and the estimated cost, raising no event', async () => {
    const w = await world(h);
    const r = await ask(w, 24, 26.5, { message: '  Picking up at 10, back by 12:30  ' });
    const b = r.data!.requestBooking;
    expect(b).toMatchObject({
      carId: w.carId,
      borrowerId: w.borrower.id,
      ownerId: w.owner.id,
      state: 'Pending',
      startDateUtc: '2026-07-02T10:00:00.000Z',
      endDateUtc: '2026-07-02T12:30:00.000Z',
      message: 'Picking up at 10, back by 12:30',
      requestedDateUtc: '2026-07-01T10:00:00.000Z',
      approvedDateUtc: null,
      isNoShow: false,
      cancellationReason: null,
      // 12.50 USD an hour × 2.5 hours
      estimatedCost: { amount: '31.25', currency: 'USD' },
    });
    expect(b.reference).toMatch(/^[A-Z2-9]{8}$/);
    expect(await bookingEvents(h)).toHaveLength(0);
  });

  it('rounds the estimated cost to the cent', async () => {
    const w = await world(h, { hourlyRate: { amount: '9.99', currency: 'EUR' } });
    // 9.99 × 100/60 h = 16.65
    const b = (await ask(w, 24, 24 + 100 / 60)).data!.requestBooking;
    expect(b.estimatedCost).toEqual({ amount: '16.65', currency: 'EUR' });
    // 9.99 × 61/60 h = 10.1565 → 10.16
    const c = (await ask(w, 30, 30 + 61 / 60)).data!.requestBooking;
    expect(c.estimatedCost).toEqual({ amount: '10.16', currency: 'EUR' });
  });

  it('is Approved at once when the car auto-approves, raising carbooking_approve for borrower and owner', async () => {
    const w = await world(h, { autoApprove: true });
    const b = (await ask(w, 24, 26)).data!.requestBooking;
    expect(b.state).toBe('Approved');
    expect(b.approvedDateUtc).toBe('2026-07-01T10:00:00.000Z');
    const events = await bookingEvents(h);
    expect(events).toEqual([
      {
        name: 'carbooking_approve',
        payload: expectedPayload('carbooking_approve', b, '2026-07-01T10:00:00.000Z'),
        audience: [w.borrower.id, w.owner.id],
      },
    ]);
  });

  it('lets many Pending requests overlap, and a back-to-back booking of an Approved one', async () => {
    const w = await world(h);
    const other = await verifiedBorrower(h);
    await requestBooking(h, w, 24, 26);
    const second = await requestBooking(h, w, 25, 27, other);
    expect(second.state).toBe('Pending');
    await h.ok(w.owner.actor, APPROVE, { id: second.id });
    // [27, 28) touches [25, 27) at its end; [23, 25) at its start.
    expect((await ask(w, 27, 28)).errors).toBeUndefined();
    expect((await ask(w, 23, 25)).errors).toBeUndefined();
  });

  it('refuses a period overlapping an Approved booking: 409 CarUnavailable naming the conflict, nothing stored', async () => {
    const w = await world(h, { autoApprove: true });
    const first = await requestBooking(h, w, 24, 26);
    const before = await bookingCount();
    const r = await ask(w, 25, 27);
    expect(errorOf(r).code).toBe('CarUnavailable');
    expect(meta(r)).toEqual({
      conflictStartDateUtc: first.startDateUtc,
      conflictEndDateUtc: first.endDateUtc,
    });
    expect(await bookingCount()).toBe(before);
    expect(await bookingEvents(h)).toHaveLength(1);
  });

  it('refuses a period overlapping an unavailability of the car', async () => {
    const w = await world(h);
    await h.ok(w.owner.actor, CREATE_UNAVAILABILITY, {
      carId: w.carId,
      input: { startDateUtc: inHours(h, 30), endDateUtc: inHours(h, 40), reason: 'Maintenance' },
    });
    const r = await ask(w, 28, 31);
    expect(errorOf(r).code).toBe('CarUnavailable');
    expect(meta(r)).toEqual({
      conflictStartDateUtc: '2026-07-02T16:00:00.000Z',
      conflictEndDateUtc: '2026-07-03T02:00:00.000Z',
    });
    expect((await ask(w, 28, 30)).errors).toBeUndefined();
  });

  it('starts at least the lead (15 minutes) from now: 14 minutes is StartTooSoon, 15 is fine', async () => {
    const w = await world(h);
    const early = await ask(w, 14 / 60, 2);
    expect(errorOf(early).code).toBe('RuleViolation');
    expect(meta(early)).toEqual({ rule: 'StartTooSoon' });
    const past = await ask(w, -1, 2);
    expect(meta(past)).toEqual({ rule: 'StartTooSoon' });
    expect((await ask(w, 15 / 60, 2)).errors).toBeUndefined();
  });

  it('keeps the duration within the car minimum and maximum: DurationOutOfRange outside', async () => {
    const w = await world(h, { minimumBookingMinutes: 60, maximumBookingMinutes: 180 });
    expect(meta(await ask(w, 24, 24.99))).toEqual({ rule: 'DurationOutOfRange' });
    expect(meta(await ask(w, 24, 27.01))).toEqual({ rule: 'DurationOutOfRange' });
    expect((await ask(w, 24, 25)).errors).toBeUndefined();
    expect((await ask(w, 30, 33)).errors).toBeUndefined();
  });

  it('needs a verified borrower: BorrowerNotVerified', async () => {
    const w = await world(h);
    const unverified = await createUser(h);
    const r = await ask(w, 24, 26, {}, unverified);
    expect(errorOf(r).code).toBe('RuleViolation');
    expect(meta(r)).toEqual({ rule: 'BorrowerNotVerified' });
  });

  it('needs a bookable car: CarNotBookable when unlisted, unverified, or the owner is suspended', async () => {
    const w = await world(h);
    await h.ok(w.owner.actor, UNLIST_CAR, { id: w.carId });
    expect(meta(await ask(w, 24, 26))).toEqual({ rule: 'CarNotBookable' });

    const v = await world(h);
    await sql(
      h,
      `update verification set status = 'Expired' where subject_id = ? and kind = 'RoadWorthiness'`,
      [v.carId],
    );
    expect(meta(await ask(v, 24, 26))).toEqual({ rule: 'CarNotBookable' });

    const s = await world(h);
    await sql(h, `update user_account set status = 'Suspended' where id = ?`, [s.owner.id]);
    expect(meta(await ask(s, 24, 26))).toEqual({ rule: 'CarNotBookable' });
    expect(await bookingCount()).toBe(0);
  });

  it('names invalid fields: missing dates, end before start, a message too long', async () => {
    const w = await world(h);
    const missing = await h.run(w.borrower.actor, REQUEST, { carId: w.carId, input: {} });
    expect(missing.errors?.[0]?.extensions?.errors?.map((e) => [e.field, e.code])).toEqual([
      ['startDateUtc', 'NotEmpty'],
      ['endDateUtc', 'NotEmpty'],
    ]);
    expect(errorOf(await ask(w, 26, 24))).toMatchObject({ code: 'InvalidValue', field: 'startDateUtc' });
    expect(errorOf(await ask(w, 24, 26, { message: 'x'.repeat(1001) }))).toMatchObject({
      code: 'TooLong',
      field: 'message',
    });
    const offset = await h.run(w.borrower.actor, REQUEST, {
      carId: w.carId,
      input: { startDateUtc: '2026-07-02T10:00:00+02:00', endDateUtc: inHours(h, 30) },
    });
    expect(errorOf(offset).code).toBe('InvalidFormat');
  });

  it('refuses the owner (403), a client application (403), a token without bookings:write (403), anonymous (401)', async () => {
    const w = await world(h);
    const vars = { carId: w.carId, input: { startDateUtc: inHours(h, 24), endDateUtc: inHours(h, 26) } };
    expect(errorOf(await h.run(w.owner.actor, REQUEST, vars)).code).toBe('Forbidden');
    expect(errorOf(await h.run(asClient(['bookings:write', 'reports:read']), REQUEST, vars)).code).toBe(
      'Forbidden',
    );
    expect(
      errorOf(await h.run(asUser(w.borrower.id, scopesWithout('bookings:write')), REQUEST, vars)).code,
    ).toBe('Forbidden');
    expect(errorOf(await h.run(anonymous, REQUEST, vars)).code).toBe('Unauthorized');
    // An operator who owns the car may not book it either.
    await sql(h, `update user_account set roles = '["user","ops"]' where id = ?`, [w.owner.id]);
    expect(errorOf(await h.run(asOps(w.owner.id), REQUEST, vars)).code).toBe('Forbidden');
    expect(await bookingCount()).toBe(0);
  });

  it('answers NotFound for an unknown car', async () => {
    const w = await world(h);
    const r = await h.run(w.borrower.actor, REQUEST, {
      carId: '00000000-0000-4000-8000-000000000000',
      input: { startDateUtc: inHours(h, 24), endDateUtc: inHours(h, 26) },
    });
    expect(errorOf(r).code).toBe('NotFound');
  });

  it('stores the hourly rate it was requested at', async () => {
    const w = await world(h, { hourlyRate: { amount: '20', currency: 'GBP' } });
    const b = await requestBooking(h, w);
    expect(await bookingRow(h, b.id)).toMatchObject({
      hourly_rate_amount: '20.00',
      hourly_rate_currency: 'GBP',
    });
    expect(b.estimatedCost).toEqual({ amount: '40.00', currency: 'GBP' });
  });
});

describe('BOOKING_LEAD_MINUTES', () => {
  // The file's harness empties the shared database before each test already.
  const h60 = useHarness({ modules: composeModules({ bookingLeadMinutes: 60 }), resetEach: false });

  it('sets the request lead: with 60, a start 45 minutes away is StartTooSoon', async () => {
    const owner = await createUser(h60);
    const w = { owner, borrower: await verifiedBorrower(h60), carId: '' };
    w.carId = await bookableCar(h60, owner);
    const input = (startH: number) => ({
      carId: w.carId,
      input: { startDateUtc: inHours(h60, startH), endDateUtc: inHours(h60, 3) },
    });
    const r = await h60.run(w.borrower.actor, REQUEST, input(0.75));
    expect(r.errors?.[0]?.extensions?.meta).toEqual({ rule: 'StartTooSoon' });
    expect((await h60.run(w.borrower.actor, REQUEST, input(1))).errors).toBeUndefined();
  });
});
