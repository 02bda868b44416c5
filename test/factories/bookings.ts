// Bookings for tests: a bookable car and a verified borrower, and bookings driven to a state through the real
// mutations (moving the clock where a transition needs its time window).

import type { Harness } from '../support/harness.js';
import { scopedSql } from '../support/scope.js';
import { createUser, markVerified, type TestUser } from './accounts.js';
import { createCar, LIST_CAR } from './cars.js';

export const BOOKING_FIELDS = `id reference carId borrowerId ownerId state startDateUtc endDateUtc message
  requestedDateUtc approvedDateUtc declinedDateUtc expiredDateUtc cancelledDateUtc usedDateUtc returnedDateUtc
  completedDateUtc cancellationReason isNoShow estimatedCost { amount currency } createdDateUtc lastModifiedDateUtc`;

export const REQUEST = `mutation($carId: UUID!, $input: RequestBookingInput!) {
  requestBooking(carId: $carId, input: $input) { ${BOOKING_FIELDS} } }`;
export const APPROVE = `mutation($id: UUID!) { approveBooking(id: $id) { ${BOOKING_FIELDS} } }`;
export const DECLINE = `mutation($id: UUID!, $input: DeclineBookingInput) {
  declineBooking(id: $id, input: $input) { ${BOOKING_FIELDS} } }`;
export const CANCEL = `mutation($id: UUID!, $input: CancelBookingInput) {
  cancelBooking(id: $id, input: $input) { ${BOOKING_FIELDS} } }`;
export const USE = `mutation($id: UUID!) { useBooking(id: $id) { ${BOOKING_FIELDS} } }`;
export const EXTEND = `mutation($id: UUID!, $input: ExtendBookingInput!) {
  extendBooking(id: $id, input: $input) { ${BOOKING_FIELDS} } }`;
export const RETURN = `mutation($id: UUID!) { returnBooking(id: $id) { ${BOOKING_FIELDS} } }`;
export const COMPLETE = `mutation($id: UUID!) { completeBooking(id: $id) { ${BOOKING_FIELDS} } }`;
export const BOOKING = `query($id: UUID!) { booking(id: $id) { ${BOOKING_FIELDS} } }`;
export const BOOKINGS = `query($role: BookingRole, $states: [CarBookingState!], $reference: String, $from: DateTime,
  $to: DateTime, $sort: String, $limit: Int, $offset: Int, $distinct: String) {
  bookings(role: $role, states: $states, reference: $reference, fromUtc: $from, toUtc: $to, sort: $sort,
    limit: $limit, offset: $offset, distinct: $distinct) {
    total limit offset sort { by direction } distinct fromUtc toUtc nodes { id state startDateUtc borrowerId } } }`;
export const CAR_BOOKINGS = `query($carId: UUID!, $states: [CarBookingState!], $from: DateTime, $to: DateTime,
  $sort: String) {
  carBookings(carId: $carId, states: $states, fromUtc: $from, toUtc: $to, sort: $sort) {
    total sort { by direction } fromUtc toUtc nodes { id state startDateUtc borrowerId } } }`;

export type B = Record<string, any>;

/** An instant `hours` after the harness clock's now, as the API writes it. */
export const inHours = (h: Harness, hours: number): string =>
  new Date(h.clock.now().getTime() + Math.round(hours * 3_600_000)).toISOString();

/** A user whose required verifications are all Verified. */
export async function verifiedBorrower(h: Harness): Promise<TestUser> {
  const u = await createUser(h);
  await markVerified(h, 'UserAccount', u.id);
  return u;
}

/** A Listed car with its verifications Verified: bookable. Rate 12.50 USD, 60 to 20160 minutes by default. */
export async function bookableCar(h: Harness, owner: TestUser, overrides: Record<string, unknown> = {}) {
  const car = await createCar(h, owner.actor, overrides);
  await markVerified(h, 'Car', car.id);
  await h.ok(owner.actor, LIST_CAR, { id: car.id });
  return car.id as string;
}

export interface World {
  owner: TestUser;
  borrower: TestUser;
  carId: string;
}

export async function world(h: Harness, carOverrides: Record<string, unknown> = {}): Promise<World> {
  const owner = await createUser(h);
  const borrower = await verifiedBorrower(h);
  return { owner, borrower, carId: await bookableCar(h, owner, carOverrides) };
}

/** A request by the borrower from `startH` to `endH` hours from now. */
export async function requestBooking(
  h: Harness,
  w: World,
  startH = 24,
  endH = 26,
  borrower: TestUser = w.borrower,
): Promise<B> {
  const d = await h.ok<{ requestBooking: B }>(borrower.actor, REQUEST, {
    carId: w.carId,
    input: { startDateUtc: inHours(h, startH), endDateUtc: inHours(h, endH) },
  });
  return d.requestBooking;
}

export type Reachable = 'Pending' | 'Approved' | 'InUse' | 'Returned' | 'Completed';

/**
 * A booking of the world's car in `state`, driven there by its parties. InUse and later move the clock to
 * 10 minutes before the booking's start (inside the use window).
 */
export async function bookingIn(h: Harness, w: World, state: Reachable, startH = 24, endH = 26): Promise<B> {
  let b = await requestBooking(h, w, startH, endH, w.borrower);
  if (state === 'Pending') return b;
  b = (await h.ok<{ approveBooking: B }>(w.owner.actor, APPROVE, { id: b.id })).approveBooking;
  if (state === 'Approved') return b;
  h.clock.set(new Date(new Date(b.startDateUtc).getTime() - 10 * 60_000));
  b = (await h.ok<{ useBooking: B }>(w.borrower.actor, USE, { id: b.id })).useBooking;
  if (state === 'InUse') return b;
  b = (await h.ok<{ returnBooking: B }>(w.borrower.actor, RETURN, { id: b.id })).returnBooking;
  if (state === 'Returned') return b;
  return (await h.ok<{ completeBooking: B }>(w.owner.actor, COMPLETE, { id: b.id })).completeBooking;
}

/** Booking events in the outbox, oldest first. */
export async function bookingEvents(h: Harness): Promise<{ name: string; payload: B; audience: string[] }[]> {
  const rows = await h.orm.em
    .fork()
    .getConnection()
    .execute<{ name: string; payload: B; audience_user_ids: string[] }[]>(
      `select name, payload, audience_user_ids from outbox_event where name like 'carbooking_%' order by seq`,
    );
  return rows.map((r) => ({ name: r.name, payload: r.payload, audience: r.audience_user_ids }));
}

/** The payload CONTRACT §8 specifies for a booking event, from the booking as the API returned it. */
export function expectedPayload(name: string, b: B, occurred: string): B {
  return {
    Name: name,
    OccurredDateUtc: occurred,
    Id: b.id,
    Reference: b.reference,
    CarId: b.carId,
    BorrowerId: b.borrowerId,
    State: b.state,
    StartDateUtc: b.startDateUtc,
    EndDateUtc: b.endDateUtc,
  };
}

/** A booking's stored row, past every visibility rule. */
export async function bookingRow(h: Harness, id: string): Promise<B> {
  const rows = await h.orm.em
    .fork()
    .getConnection()
    .execute<B[]>('select * from car_booking where id = ?', [id]);
  return rows[0]!;
}

/**
 * `n` bookings of the world's car in `state`, inserted directly (fast, for timers and searches): the i-th runs
 * 2 hours from `firstStart` + 3·i hours; Returned ones were returned at their end.
 */
export async function seedBookings(
  h: Harness,
  w: World,
  n: number,
  state: 'Pending' | 'Approved' | 'InUse' | 'Returned',
  firstStart: string,
): Promise<string[]> {
  const rows = await scopedSql<{ id: string }>(
    h.orm,
    `insert into car_booking (id, reference, car_id, borrower_id, owner_id, state, start_date_utc, end_date_utc,
         requested_date_utc, approved_date_utc, used_date_utc, returned_date_utc, hourly_rate_amount,
         hourly_rate_currency, created_date_utc, last_modified_date_utc)
       select gen_random_uuid(), translate(upper(substr(md5(i::text || random()::text), 1, 8)), '01', 'XY'),
         ?, ?, ?, ?, s, s + interval '2 hours', ?, ?, ?, case when ? = 'Returned' then s + interval '2 hours' end,
         12.50, 'USD', ?, ?
       from generate_series(0, ? - 1) i, lateral (select ?::timestamptz + i * interval '3 hours' as s) t
       returning id`,
    [
      w.carId,
      w.borrower.id,
      w.owner.id,
      state,
      h.clock.now(),
      state === 'Pending' ? null : h.clock.now(),
      state === 'InUse' || state === 'Returned' ? h.clock.now() : null,
      state,
      h.clock.now(),
      h.clock.now(),
      n,
      firstStart,
    ],
  );
  return rows.map((r) => r.id);
}
