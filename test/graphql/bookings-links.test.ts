// What bookings share with their neighbours: the embedded Car, Borrower and Feedbacks; feedback left on a
// booking (createFeedback); and the occupancy port through which cars learn which cars are booked.
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { outbox } from '../factories/accounts.js';
import {
  APPROVE,
  type B,
  bookingIn,
  inHours,
  requestBooking,
  verifiedBorrower,
  type World,
  world,
} from '../factories/bookings.js';
import { CARS, CREATE_UNAVAILABILITY, DELETE_CAR } from '../factories/cars.js';
import { asClient, asOps, asUser } from '../support/actors.js';
import { errorOf, useHarness } from '../support/harness.js';

let w: World;
const h = useHarness();
beforeEach(async () => {
  w = await world(h);
});

const EMBEDDED = `query($id: UUID!) { booking(id: $id) { id
  car { id ownerId make hourlyRate { amount currency } }
  borrower { userId displayName }
  feedbacks { authorId subjectType subjectId rating comment } } }`;
const FEEDBACK = `mutation($id: UUID!, $input: CreateFeedbackInput!) {
  createFeedback(carBookingId: $id, input: $input) { id carBookingId authorId subjectType subjectId rating comment } }`;
const RATING =
  'query($t: SubjectType!, $id: UUID!) { rating(subjectType: $t, subjectId: $id) { count average } }';

describe('embedded descendants', () => {
  it('a booking embeds its Car, its Borrower (profile) and its Feedbacks', async () => {
    const b = await requestBooking(h, w);
    const d = await h.ok<{ booking: B }>(w.borrower.actor, EMBEDDED, { id: b.id });
    expect(d.booking).toEqual({
      id: b.id,
      car: {
        id: w.carId,
        ownerId: w.owner.id,
        make: 'Toyota',
        hourlyRate: { amount: '12.50', currency: 'USD' },
      },
      borrower: { userId: w.borrower.id, displayName: expect.any(String) },
      feedbacks: [],
    });
  });
});

describe('createFeedback', () => {
  it('is refused before the car is back (409 InvalidStateTransition)', async () => {
    const u = await bookingIn(h, w, 'InUse');
    const r = await h.run(w.borrower.actor, FEEDBACK, { id: u.id, input: { rating: 5 } });
    expect(errorOf(r).code).toBe('InvalidStateTransition');
    expect(r.errors![0]!.extensions!.meta).toEqual({ state: 'InUse' });
  });

  it('lets the borrower rate the car and the owner the borrower, once each; ratings and the embed follow', async () => {
    const r = await bookingIn(h, w, 'Returned');
    const byBorrower = await h.ok<{ createFeedback: B }>(w.borrower.actor, FEEDBACK, {
      id: r.id,
      input: { rating: 4, comment: 'Clean car' },
    });
    expect(byBorrower.createFeedback).toMatchObject({
      carBookingId: r.id,
      authorId: w.borrower.id,
      subjectType: 'Car',
      subjectId: w.carId,
      rating: 4,
    });
    const byOwner = await h.ok<{ createFeedback: B }>(w.owner.actor, FEEDBACK, {
      id: r.id,
      input: { rating: 5 },
    });
    expect(byOwner.createFeedback).toMatchObject({ subjectType: 'UserAccount', subjectId: w.borrower.id });
    const again = await h.run(w.borrower.actor, FEEDBACK, { id: r.id, input: { rating: 1 } });
    expect(errorOf(again).code).toBe('AlreadyExists');
    const car = await h.ok<{ rating: B }>(w.owner.actor, RATING, { t: 'Car', id: w.carId });
    expect(car.rating).toEqual({ count: 1, average: 4 });
    const person = await h.ok<{ rating: B }>(w.owner.actor, RATING, { t: 'UserAccount', id: w.borrower.id });
    expect(person.rating).toEqual({ count: 1, average: 5 });
    const d = await h.ok<{ booking: B }>(w.owner.actor, EMBEDDED, { id: r.id });
    expect(d.booking.feedbacks.map((f: B) => f.authorId).sort()).toEqual([w.borrower.id, w.owner.id].sort());
    const events = (await outbox(h)).filter((e) => e.name === 'feedback_update');
    expect(events.map((e) => e.payload.CarBookingId)).toEqual([r.id, r.id]);
  });

  it('answers a stranger 404, ops who are no party 403, a client application 403', async () => {
    const r = await bookingIn(h, w, 'Returned');
    const input = { rating: 3 };
    expect(errorOf(await h.run(asUser(randomUUID()), FEEDBACK, { id: r.id, input })).code).toBe('NotFound');
    expect(errorOf(await h.run(asOps(), FEEDBACK, { id: r.id, input })).code).toBe('Forbidden');
    expect(errorOf(await h.run(asClient(['feedback:write']), FEEDBACK, { id: r.id, input })).code).toBe(
      'Forbidden',
    );
    expect((await outbox(h)).filter((e) => e.name === 'feedback_update')).toEqual([]);
  });
});

describe('the occupancy port (cars asking bookings)', () => {
  it('refuses deleting a car with unfinished bookings, and allows it once they are finished', async () => {
    const c = await bookingIn(h, w, 'Completed');
    const p = await requestBooking(h, w, 30, 32);
    const r = await h.run(w.owner.actor, DELETE_CAR, { id: w.carId });
    expect(errorOf(r).code).toBe('Conflict');
    await h.ok(
      w.borrower.actor,
      'mutation($id: UUID!) { cancelBooking(id: $id, input: { reason: "no" }) { id } }',
      {
        id: p.id,
      },
    );
    expect((await h.run(w.owner.actor, DELETE_CAR, { id: w.carId })).errors).toBeUndefined();
    // The finished booking keeps its history; its car is gone.
    const d = await h.ok<{ booking: B }>(w.borrower.actor, EMBEDDED, { id: c.id });
    expect(d.booking.car).toBeNull();
  });

  it('hides a car booked (Approved) over the period from the bookable search; a Pending request does not', async () => {
    const p = await requestBooking(h, w, 24, 26);
    const search = async () =>
      (
        await h.ok<{ cars: { nodes: B[] } }>(w.borrower.actor, CARS, {
          from: inHours(h, 25),
          to: inHours(h, 27),
        })
      ).cars.nodes.map((n) => n.id);
    expect(await search()).toEqual([w.carId]);
    await h.ok(w.owner.actor, APPROVE, { id: p.id });
    expect(await search()).toEqual([]);
  });

  it('refuses an unavailability over an Approved booking, not over a Pending request', async () => {
    const other = await verifiedBorrower(h);
    await requestBooking(h, w, 24, 26, other);
    const add = (s: number, e: number) =>
      h.run(w.owner.actor, CREATE_UNAVAILABILITY, {
        carId: w.carId,
        input: { startDateUtc: inHours(h, s), endDateUtc: inHours(h, e) },
      });
    expect((await add(25, 26)).errors).toBeUndefined();
    const a = await bookingIn(h, w, 'Approved', 40, 42);
    expect(a.state).toBe('Approved');
    expect(errorOf(await add(41, 43)).code).toBe('Conflict');
  });
});
