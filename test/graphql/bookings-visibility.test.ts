// Who sees which bookings (CONTRACT §6): owner and borrower get different sets, ops and reports:read see all, a
// stranger cannot read, guess or act on a booking; the searches' states, window and sort.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newReference } from '../../src/bookings/booking-reference.js';
import { createUser, type TestUser } from '../factories/accounts.js';
import {
  APPROVE,
  type B,
  BOOKING,
  BOOKINGS,
  bookableCar,
  CANCEL,
  CAR_BOOKINGS,
  COMPLETE,
  DECLINE,
  EXTEND,
  RETURN,
  requestBooking,
  seedBookings,
  USE,
  verifiedBorrower,
  type World,
} from '../factories/bookings.js';
import { asClient, asOps, asUser, scopesWithout } from '../support/actors.js';
import { errorOf, useHarness } from '../support/harness.js';

const h = useHarness();

type Page = { total: number; sort: B; fromUtc: string | null; toUtc: string | null; nodes: B[] };
const ids = (p: Page) => p.nodes.map((n) => n.id).sort();
const sorted = (xs: string[]) => [...xs].sort();

interface Scene {
  owner: TestUser;
  owner2: TestUser;
  b1: TestUser;
  b2: TestUser;
  car1: World;
  car2: World;
  b1car1: B;
  b2car1: B;
  b1car2: B;
}

async function scene(): Promise<Scene> {
  const owner = await createUser(h);
  const owner2 = await createUser(h);
  const b1 = await verifiedBorrower(h);
  const b2 = await verifiedBorrower(h);
  const car1 = { owner, borrower: b1, carId: await bookableCar(h, owner) };
  const car2 = { owner: owner2, borrower: b1, carId: await bookableCar(h, owner2) };
  const b1car1 = await requestBooking(h, car1, 24, 26, b1);
  const b2car1 = await requestBooking(h, car1, 48, 50, b2);
  const b1car2 = await requestBooking(h, car2, 30, 32, b1);
  return { owner, owner2, b1, b2, car1, car2, b1car1, b2car1, b1car2 };
}

const search = async (actor: TestUser['actor'], vars: Record<string, unknown> = {}) =>
  (await h.ok<{ bookings: Page }>(actor, BOOKINGS, vars)).bookings;
const ofCar = async (actor: TestUser['actor'], carId: string, vars: Record<string, unknown> = {}) =>
  (await h.ok<{ carBookings: Page }>(actor, CAR_BOOKINGS, { carId, ...vars })).carBookings;

describe('bookings (the caller’s)', () => {
  it('gives the owner and the borrower different sets; role narrows; ops and reports:read see all', async () => {
    const s = await scene();
    expect(ids(await search(s.owner.actor))).toEqual(sorted([s.b1car1.id, s.b2car1.id]));
    expect(ids(await search(s.b1.actor))).toEqual(sorted([s.b1car1.id, s.b1car2.id]));
    expect(ids(await search(s.b2.actor))).toEqual([s.b2car1.id]);
    expect(ids(await search(s.owner2.actor))).toEqual([s.b1car2.id]);
    expect(ids(await search(s.b1.actor, { role: 'owner' }))).toEqual([]);
    expect(ids(await search(s.owner.actor, { role: 'owner' }))).toEqual(sorted([s.b1car1.id, s.b2car1.id]));
    expect(ids(await search(s.owner.actor, { role: 'borrower' }))).toEqual([]);
    const all = sorted([s.b1car1.id, s.b2car1.id, s.b1car2.id]);
    expect(ids(await search(asOps()))).toEqual(all);
    expect(ids(await search(asClient(['reports:read'])))).toEqual(all);
    expect(ids(await search(asUser(randomUUID())))).toEqual([]);
  });

  it('carId and borrowerId narrow the search, within what the caller may see', async () => {
    const s = await scene();
    const narrowed = async (actor: TestUser['actor'], vars: Record<string, unknown>) =>
      (
        await h.ok<{ bookings: Page }>(
          actor,
          'query($carId: UUID, $borrowerId: UUID) { bookings(carId: $carId, borrowerId: $borrowerId) { total nodes { id } } }',
          vars,
        )
      ).bookings;
    expect(ids(await narrowed(asOps(), { carId: s.car1.carId }))).toEqual(sorted([s.b1car1.id, s.b2car1.id]));
    expect(ids(await narrowed(asOps(), { borrowerId: s.b1.id }))).toEqual(sorted([s.b1car1.id, s.b1car2.id]));
    expect(ids(await narrowed(asOps(), { carId: s.car1.carId, borrowerId: s.b1.id }))).toEqual([s.b1car1.id]);
    // A borrower asking for someone else's bookings of a car gets none of them.
    expect(ids(await narrowed(s.b2.actor, { borrowerId: s.b1.id }))).toEqual([]);
  });

  it('refuses a client application without reports:read and a user token without bookings:read (403)', async () => {
    const s = await scene();
    expect(errorOf(await h.run(asClient(['bookings:read', 'cars:read']), BOOKINGS)).code).toBe('Forbidden');
    expect(errorOf(await h.run(asUser(s.b1.id, scopesWithout('bookings:read')), BOOKINGS)).code).toBe(
      'Forbidden',
    );
  });

  it('filters by states, sorts by startDateUtc ascending by default, and echoes what it applied', async () => {
    const s = await scene();
    await h.ok(s.owner.actor, APPROVE, { id: s.b2car1.id });
    const page = await search(s.owner.actor);
    expect(page.sort).toEqual({ by: 'startDateUtc', direction: 'Ascending' });
    expect(page.nodes.map((n) => n.id)).toEqual([s.b1car1.id, s.b2car1.id]);
    expect(page.fromUtc).toBe('2026-06-01T10:00:00.000Z');
    expect(page.toUtc).toBe('2026-09-29T10:00:00.000Z');
    const desc = await search(s.owner.actor, { sort: '-startDateUtc' });
    expect(desc.nodes.map((n) => n.id)).toEqual([s.b2car1.id, s.b1car1.id]);
    expect(ids(await search(s.owner.actor, { states: ['Approved'] }))).toEqual([s.b2car1.id]);
    expect(ids(await search(s.owner.actor, { states: ['Pending', 'Approved'] }))).toHaveLength(2);
    expect(ids(await search(s.owner.actor, { states: ['InUse'] }))).toEqual([]);
    expect(errorOf(await h.run(s.owner.actor, BOOKINGS, { sort: 'colour' }))).toMatchObject({
      code: 'InvalidValue',
      field: 'sort',
    });
    const bySorted = await search(s.owner.actor, { sort: '-estimatedCost' });
    expect(bySorted.sort).toEqual({ by: 'estimatedCost', direction: 'Descending' });
  });

  it('keeps, by default, bookings overlapping [now − 30 days, now + 90 days); fromUtc/toUtc choose another window', async () => {
    const owner = await createUser(h);
    const w = { owner, borrower: await verifiedBorrower(h), carId: await bookableCar(h, owner) };
    const [old] = await seedBookings(h, w, 1, 'Returned', '2026-06-01T08:00:00.000Z'); // ends 10:00, 30 days ago
    const [edge] = await seedBookings(h, w, 1, 'Returned', '2026-06-01T09:00:00.000Z'); // ends 11:00
    const [far] = await seedBookings(h, w, 1, 'Pending', '2026-09-29T10:00:00.000Z'); // starts at now + 90 days
    const [near] = await seedBookings(h, w, 1, 'Pending', '2026-09-29T09:00:00.000Z');
    expect(ids(await search(owner.actor))).toEqual(sorted([edge!, near!]));
    const wide = await search(owner.actor, { from: '2026-01-01T00:00:00Z', to: '2027-01-01T00:00:00Z' });
    expect(ids(wide)).toEqual(sorted([old!, edge!, far!, near!]));
    // Only one end given: the other keeps its default unless that would be on its wrong side.
    expect(ids(await search(owner.actor, { from: '2026-09-29T10:00:00Z' }))).toEqual(sorted([far!, near!]));
    expect(ids(await search(owner.actor, { to: '2026-06-01T09:30:00Z' }))).toEqual(sorted([old!, edge!]));
    const bad = await h.run(owner.actor, BOOKINGS, {
      from: '2026-07-02T00:00:00Z',
      to: '2026-07-01T00:00:00Z',
    });
    expect(errorOf(bad)).toMatchObject({ code: 'InvalidValue', field: 'fromUtc' });
  });
});

describe('carBookings', () => {
  it('shows the owner and ops all of the car’s bookings, another user only their own', async () => {
    const s = await scene();
    const car1 = s.car1.carId;
    expect(ids(await ofCar(s.owner.actor, car1))).toEqual(sorted([s.b1car1.id, s.b2car1.id]));
    expect(ids(await ofCar(asOps(), car1))).toEqual(sorted([s.b1car1.id, s.b2car1.id]));
    expect(ids(await ofCar(asClient(['reports:read']), car1))).toHaveLength(2);
    expect(ids(await ofCar(s.b1.actor, car1))).toEqual([s.b1car1.id]);
    expect(ids(await ofCar(s.b2.actor, car1))).toEqual([s.b2car1.id]);
    expect(ids(await ofCar(s.owner2.actor, car1))).toEqual([]);
    expect(errorOf(await h.run(s.owner.actor, CAR_BOOKINGS, { carId: randomUUID() })).code).toBe('NotFound');
  });
});

describe('a stranger', () => {
  it('cannot read a booking (404), find it by reference, or act on it in any way (404)', async () => {
    const s = await scene();
    const stranger = await verifiedBorrower(h);
    const id = s.b1car1.id;
    expect(errorOf(await h.run(stranger.actor, BOOKING, { id })).code).toBe('NotFound');
    expect(ids(await search(stranger.actor, { reference: s.b1car1.reference }))).toEqual([]);
    expect(ids(await search(s.b1.actor, { reference: s.b1car1.reference.toLowerCase() }))).toEqual([id]);
    for (const [op, vars] of [
      [APPROVE, { id }],
      [DECLINE, { id }],
      [CANCEL, { id, input: { reason: 'mine now' } }],
      [USE, { id }],
      [EXTEND, { id, input: { endDateUtc: '2026-07-04T10:00:00.000Z' } }],
      [RETURN, { id }],
      [COMPLETE, { id }],
    ] as const)
      expect(errorOf(await h.run(stranger.actor, op, vars)).code).toBe('NotFound');
    // The parties and network-wide readers do see it.
    for (const actor of [s.b1.actor, s.owner.actor, asOps(), asClient(['reports:read'])])
      expect((await h.ok<{ booking: B }>(actor, BOOKING, { id })).booking.id).toBe(id);
  });

  it('cannot guess a reference: 8 symbols of A–Z and 2–9, drawn uniformly and independently', () => {
    const refs = Array.from({ length: 20_000 }, () => newReference());
    expect(refs.every((r) => /^[A-Z2-9]{8}$/.test(r))).toBe(true);
    expect(new Set(refs).size).toBe(refs.length);
    const counts = new Map<string, number>();
    for (const r of refs) for (const c of r) counts.set(c, (counts.get(c) ?? 0) + 1);
    // Every one of the 34 symbols is used, none far from 160000 / 34 ≈ 4706 draws (no bias, no missing symbol).
    expect(counts.size).toBe(34);
    for (const n of counts.values()) expect(Math.abs(n - 160_000 / 34)).toBeLessThan(400);
  });
});
