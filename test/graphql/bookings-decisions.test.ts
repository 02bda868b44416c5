// Approve, decline and cancel (CONTRACT §6): each allowed actor, each refusal with its status and code, the
// exact events, and nothing recorded by a refused transition.
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  APPROVE,
  type B,
  BOOKING,
  bookingEvents,
  bookingIn,
  bookingRow,
  CANCEL,
  DECLINE,
  expectedPayload,
  inHours,
  requestBooking,
  verifiedBorrower,
  type World,
  world,
} from '../factories/bookings.js';
import { CREATE_UNAVAILABILITY } from '../factories/cars.js';
import { asClient, asOps, asUser } from '../support/actors.js';
import { errorOf, type GqlResult, useHarness } from '../support/harness.js';

let w: World;
const h = useHarness();
beforeEach(async () => {
  w = await world(h);
});

const NOW = '2026-07-01T10:00:00.000Z';
const meta = (r: GqlResult) => r.errors?.[0]?.extensions?.meta;
const stateOf = async (id: string) => (await bookingRow(h, id)).state as string;

describe('approveBooking', () => {
  it.each([
    ['the owner', () => w.owner.actor],
    ['ops', () => asOps()],
  ])('by %s: Pending → Approved, raising carbooking_approve', async (_, actor) => {
    const p = await requestBooking(h, w);
    h.clock.advance(60_000);
    const b = (await h.ok<{ approveBooking: B }>(actor(), APPROVE, { id: p.id })).approveBooking;
    expect(b).toMatchObject({
      state: 'Approved',
      approvedDateUtc: '2026-07-01T10:01:00.000Z',
      lastModifiedDateUtc: '2026-07-01T10:01:00.000Z',
    });
    expect(await bookingEvents(h)).toEqual([
      {
        name: 'carbooking_approve',
        payload: expectedPayload('carbooking_approve', b, '2026-07-01T10:01:00.000Z'),
        audience: [w.borrower.id, w.owner.id],
      },
    ]);
  });

  it('refuses the borrower approving their own request (403), a stranger (404), a client application (403)', async () => {
    const p = await requestBooking(h, w);
    expect(errorOf(await h.run(w.borrower.actor, APPROVE, { id: p.id })).code).toBe('Forbidden');
    expect(errorOf(await h.run(asUser(randomUUID()), APPROVE, { id: p.id })).code).toBe('NotFound');
    expect(errorOf(await h.run(asClient(['bookings:write']), APPROVE, { id: p.id })).code).toBe('Forbidden');
    expect(errorOf(await h.run(w.owner.actor, APPROVE, { id: randomUUID() })).code).toBe('NotFound');
    expect(await stateOf(p.id)).toBe('Pending');
    expect(await bookingEvents(h)).toEqual([]);
  });

  it('must be decided before start − 15 minutes: DecisionTooLate at the cut-off', async () => {
    const p = await requestBooking(h, w, 2, 4);
    h.clock.set('2026-07-01T11:45:00.000Z');
    const r = await h.run(w.owner.actor, APPROVE, { id: p.id });
    expect(errorOf(r).code).toBe('RuleViolation');
    expect(meta(r)).toEqual({ rule: 'DecisionTooLate' });
    h.clock.set('2026-07-01T11:44:59.999Z');
    expect((await h.run(w.owner.actor, APPROVE, { id: p.id })).errors).toBeUndefined();
    expect(await bookingEvents(h)).toHaveLength(1);
  });

  it('re-checks the period: a second overlapping request cannot be approved (409 CarUnavailable)', async () => {
    const other = await verifiedBorrower(h);
    const first = await requestBooking(h, w, 24, 26);
    const second = await requestBooking(h, w, 25, 28, other);
    await h.ok(w.owner.actor, APPROVE, { id: first.id });
    const r = await h.run(w.owner.actor, APPROVE, { id: second.id });
    expect(errorOf(r).code).toBe('CarUnavailable');
    expect(meta(r)).toEqual({
      conflictStartDateUtc: first.startDateUtc,
      conflictEndDateUtc: first.endDateUtc,
    });
    expect(await stateOf(second.id)).toBe('Pending');
    expect((await bookingEvents(h)).map((e) => e.payload.Id)).toEqual([first.id]);
  });

  it('is refused when an unavailability was declared over the request since', async () => {
    const p = await requestBooking(h, w, 24, 26);
    await h.ok(w.owner.actor, CREATE_UNAVAILABILITY, {
      carId: w.carId,
      input: { startDateUtc: inHours(h, 25), endDateUtc: inHours(h, 48) },
    });
    const r = await h.run(w.owner.actor, APPROVE, { id: p.id });
    expect(errorOf(r).code).toBe('CarUnavailable');
    expect(meta(r)).toEqual({
      conflictStartDateUtc: inHours(h, 25),
      conflictEndDateUtc: inHours(h, 48),
    });
  });

  it('from any state but Pending is 409 InvalidStateTransition with the state', async () => {
    const a = await bookingIn(h, w, 'Approved');
    const r = await h.run(w.owner.actor, APPROVE, { id: a.id });
    expect(errorOf(r).code).toBe('InvalidStateTransition');
    expect(meta(r)).toEqual({ state: 'Approved' });
    expect(await bookingEvents(h)).toHaveLength(1);
  });
});

describe('declineBooking', () => {
  it.each([
    ['the owner', () => w.owner.actor],
    ['ops', () => asOps()],
  ])('by %s: Pending → Declined with the reason kept, raising no event', async (_, actor) => {
    const p = await requestBooking(h, w);
    const b = (
      await h.ok<{ declineBooking: B }>(actor(), DECLINE, {
        id: p.id,
        input: { reason: 'Car at the garage' },
      })
    ).declineBooking;
    expect(b).toMatchObject({ state: 'Declined', declinedDateUtc: NOW });
    expect((await bookingRow(h, p.id)).decline_reason).toBe('Car at the garage');
    const noReason = await requestBooking(h, w, 30, 32);
    expect(
      (await h.ok<{ declineBooking: B }>(actor(), DECLINE, { id: noReason.id })).declineBooking.state,
    ).toBe('Declined');
    expect(await bookingEvents(h)).toEqual([]);
  });

  it('refuses the borrower (403), a stranger (404), and any state but Pending (409)', async () => {
    const p = await requestBooking(h, w);
    expect(errorOf(await h.run(w.borrower.actor, DECLINE, { id: p.id })).code).toBe('Forbidden');
    expect(errorOf(await h.run(asUser(randomUUID()), DECLINE, { id: p.id })).code).toBe('NotFound');
    await h.ok(w.owner.actor, DECLINE, { id: p.id });
    const again = await h.run(w.owner.actor, DECLINE, { id: p.id });
    expect(errorOf(again).code).toBe('InvalidStateTransition');
    expect(meta(again)).toEqual({ state: 'Declined' });
    expect(errorOf(await h.run(w.owner.actor, APPROVE, { id: p.id })).code).toBe('InvalidStateTransition');
  });
});

describe('cancelBooking', () => {
  const reason = { reason: 'Plans changed' };

  it('by the borrower from Pending: Cancelled with the reason, raising no event (it was never a booking)', async () => {
    const p = await requestBooking(h, w);
    const b = (await h.ok<{ cancelBooking: B }>(w.borrower.actor, CANCEL, { id: p.id, input: reason }))
      .cancelBooking;
    expect(b).toMatchObject({
      state: 'Cancelled',
      cancelledDateUtc: NOW,
      cancellationReason: 'Plans changed',
    });
    expect(await bookingEvents(h)).toEqual([]);
  });

  it.each([
    ['the borrower', () => w.borrower.actor],
    ['the owner', () => w.owner.actor],
    ['ops', () => asOps()],
  ])(
    'by %s from Approved: Cancelled, raising carbooking_cancel, and the period is free again',
    async (_, actor) => {
      const a = await bookingIn(h, w, 'Approved');
      const b = (await h.ok<{ cancelBooking: B }>(actor(), CANCEL, { id: a.id, input: reason }))
        .cancelBooking;
      expect(b.state).toBe('Cancelled');
      const events = await bookingEvents(h);
      expect(events.map((e) => e.name)).toEqual(['carbooking_approve', 'carbooking_cancel']);
      expect(events[1]).toEqual({
        name: 'carbooking_cancel',
        payload: expectedPayload('carbooking_cancel', b, NOW),
        audience: [w.borrower.id, w.owner.id],
      });
      expect((await requestBooking(h, w, 24, 26)).state).toBe('Pending');
    },
  );

  it('refuses the owner cancelling a Pending request (409: they may only from Approved)', async () => {
    const p = await requestBooking(h, w);
    const r = await h.run(w.owner.actor, CANCEL, { id: p.id, input: reason });
    expect(errorOf(r).code).toBe('InvalidStateTransition');
    expect(meta(r)).toEqual({ state: 'Pending' });
  });

  it('refuses cancelling after use (409 with State InUse), and records nothing', async () => {
    const u = await bookingIn(h, w, 'InUse');
    const before = await bookingEvents(h);
    const r = await h.run(w.borrower.actor, CANCEL, { id: u.id, input: reason });
    expect(errorOf(r).code).toBe('InvalidStateTransition');
    expect(meta(r)).toEqual({ state: 'InUse' });
    expect(await bookingEvents(h)).toEqual(before);
  });

  it('needs a reason of at most 1000 characters; a stranger gets 404', async () => {
    const p = await requestBooking(h, w);
    expect(errorOf(await h.run(w.borrower.actor, CANCEL, { id: p.id }))).toMatchObject({
      code: 'NotEmpty',
      field: 'reason',
    });
    expect(
      errorOf(await h.run(w.borrower.actor, CANCEL, { id: p.id, input: { reason: 'x'.repeat(1001) } })),
    ).toMatchObject({ code: 'TooLong', field: 'reason' });
    expect(errorOf(await h.run(asUser(randomUUID()), CANCEL, { id: p.id, input: reason })).code).toBe(
      'NotFound',
    );
    const seen = await h.ok<{ booking: B }>(w.borrower.actor, BOOKING, { id: p.id });
    expect(seen.booking.state).toBe('Pending');
  });
});
