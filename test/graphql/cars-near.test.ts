// `cars(near:)` over GraphQL (CONTRACT §17): distances checked against the haversine computed in the test (a
// city, across the antimeridian, around both poles), the radius, the order, and every other search rule with it.
import { beforeEach, describe, expect, it } from 'vitest';
import { nearSql } from '../../src/cars/car-near.js';
import { createUser, type TestUser } from '../factories/accounts.js';
import { CREATE_UNAVAILABILITY, carWithStatus } from '../factories/cars.js';
import { AROUND_BERLIN, type At, BERLIN, greatCircleKm, ROUNDING_KM } from '../factories/places.js';
import { asOps, asUser } from '../support/actors.js';
import { errorOf, useHarness } from '../support/harness.js';
import { scoped } from '../support/scope.js';

const h = useHarness();
let owner: TestUser;
beforeEach(async () => {
  owner = await createUser(h);
});

const NEAR = `query($near: NearInput, $sort: String, $limit: Int, $offset: Int, $distinct: String, $make: String,
  $from: DateTime, $to: DateTime) {
  cars(near: $near, sort: $sort, limit: $limit, offset: $offset, distinct: $distinct, make: $make,
    bookableFromUtc: $from, bookableToUtc: $to) {
    total limit offset sort { by direction } distinct nodes { id make distanceKm homeLocation { latitude longitude } } } }`;

interface Node {
  id: string;
  make: string;
  distanceKm: number | null;
  homeLocation: At;
}
interface NearPage {
  total: number;
  sort: { by: string; direction: string };
  distinct: string | null;
  nodes: Node[];
}

async function carAt(at: At, make = 'Toyota'): Promise<string> {
  const car = await carWithStatus(h, owner.actor, 'Listed', {
    make,
    homeLocation: { address: `${at.latitude}, ${at.longitude}`, ...at },
  });
  return car.id;
}

async function near(vars: Record<string, unknown>): Promise<NearPage> {
  return (await h.ok<{ cars: NearPage }>(asOps(), NEAR, vars)).cars;
}

/**
 * What the search must answer: the cars within the radius by the test's own haversine, nearest first, equal
 * distances (as shown, to the metre) by id.
 */
function expected(center: At, radiusKm: number, cars: Map<string, At>): { id: string; km: number }[] {
  const shown = (km: number) => Math.round(km * 1000);
  return [...cars]
    .map(([id, at]) => ({ id, km: greatCircleKm(center, at) }))
    .filter((c) => c.km <= radiusKm)
    .sort((a, b) => shown(a.km) - shown(b.km) || (a.id < b.id ? -1 : 1));
}

function expectDistances(page: NearPage, want: { id: string; km: number }[]): void {
  expect(page.nodes.map((n) => n.id)).toEqual(want.map((w) => w.id));
  page.nodes.forEach((n, i) => {
    expect(Math.abs(n.distanceKm! - want[i]!.km)).toBeLessThanOrEqual(ROUNDING_KM);
    expect(Math.round(n.distanceKm! * 1000) / 1000).toBe(n.distanceKm);
  });
}

describe('cars(near:)', () => {
  it('keeps the cars within the radius (default 10 km), nearest first, each with its distance', async () => {
    const cars = new Map<string, At>();
    for (const at of Object.values(AROUND_BERLIN)) cars.set(await carAt(at), at);
    const byDefault = await near({ near: BERLIN });
    expect(byDefault.sort).toEqual({ by: 'distanceKm', direction: 'Ascending' });
    // Alexanderplatz (0.6 km) and Tempelhof (5.2 km); Spandau is 14 km away.
    expect(byDefault.total).toBe(2);
    expectDistances(byDefault, expected(BERLIN, 10, cars));
    const wide = await near({ near: { ...BERLIN, radiusKm: 30 } });
    expect(wide.total).toBe(4);
    expectDistances(wide, expected(BERLIN, 30, cars));
    const all = await near({ near: { ...BERLIN, radiusKm: 500 } });
    expectDistances(all, expected(BERLIN, 500, cars));
    expect(all.total).toBe(5);
  });

  it('finds cars on the other side of the antimeridian, from either side', async () => {
    const cars = new Map<string, At>();
    // At 16.8° S one degree of longitude is 106 km: 10.6 km east across the line, 16 km west, 58 km east.
    for (const at of [
      { latitude: -16.8, longitude: -179.95 },
      { latitude: -16.8, longitude: 179.8 },
      { latitude: -16.8, longitude: -179.5 },
      { latitude: -16.7, longitude: 180 },
    ])
      cars.set(await carAt(at), at);
    for (const center of [
      { latitude: -16.8, longitude: 179.95 },
      { latitude: -16.8, longitude: -179.9 },
      { latitude: -16.75, longitude: -180 },
    ]) {
      const want = expected(center, 20, cars);
      expect(want.length).toBeGreaterThanOrEqual(2);
      expectDistances(await near({ near: { ...center, radiusKm: 20 } }), want);
    }
  });

  it('finds cars across a pole, whatever their longitude', async () => {
    const cars = new Map<string, At>();
    for (const at of [
      { latitude: 89.9, longitude: 180 }, // over the pole from the center: 16.7 km
      { latitude: 89.96, longitude: -90 },
      { latitude: 89.8, longitude: 0 },
      { latitude: 89.7, longitude: 90 }, // 33.8 km
      { latitude: 90, longitude: 0 },
      { latitude: -89.95, longitude: 123 },
      { latitude: -89.85, longitude: -60 },
    ])
      cars.set(await carAt(at), at);
    const north = { latitude: 89.95, longitude: 0 };
    const n = await near({ near: { ...north, radiusKm: 20 } });
    expect(n.total).toBe(4);
    expectDistances(n, expected(north, 20, cars));
    const south = { latitude: -90, longitude: 0 };
    const s = await near({ near: { ...south, radiusKm: 10 } });
    expect(s.total).toBe(1);
    expectDistances(s, expected(south, 10, cars));
    // Near the pole but not on it: the box spans every longitude.
    const close = { latitude: 89.99, longitude: 170 };
    expectDistances(await near({ near: { ...close, radiusKm: 30 } }), expected(close, 30, cars));
  });

  it('combines with make, the bookable period, sort, paging and distinct', async () => {
    const { alexanderplatz, tempelhof, spandau, potsdam, hamburg } = AROUND_BERLIN;
    const alex = await carAt(alexanderplatz, 'Honda');
    const temp = await carAt(tempelhof, 'Toyota');
    const span = await carAt(spandau, 'Honda');
    const pots = await carAt(potsdam, 'Audi');
    await carAt(hamburg, 'Honda');
    const place = { ...BERLIN, radiusKm: 30 };
    expect((await near({ near: place, make: 'honda' })).nodes.map((n) => n.id)).toEqual([alex, span]);
    await h.ok(owner.actor, CREATE_UNAVAILABILITY, {
      carId: alex,
      input: { startDateUtc: '2026-07-02T10:00:00.000Z', endDateUtc: '2026-07-02T12:00:00.000Z' },
    });
    const free = await near({
      near: place,
      from: '2026-07-02T11:00:00.000Z',
      to: '2026-07-02T13:00:00.000Z',
    });
    expect(free.nodes.map((n) => n.id)).toEqual([temp, span, pots]);
    const byMake = await near({ near: place, sort: 'make' });
    expect(byMake.sort).toEqual({ by: 'make', direction: 'Ascending' });
    expect(byMake.nodes.map((n) => n.make)).toEqual(['Audi', 'Honda', 'Honda', 'Toyota']);
    expect(byMake.nodes.every((n) => n.distanceKm !== null)).toBe(true);
    const farthest = await near({ near: place, sort: '-DISTANCE_KM' });
    expect(farthest.sort).toEqual({ by: 'distanceKm', direction: 'Descending' });
    expect(farthest.nodes.map((n) => n.id)).toEqual([pots, span, temp, alex]);
    const page = await near({ near: place, limit: 2, offset: 1 });
    expect(page).toMatchObject({ total: 4, limit: 2, offset: 1 });
    expect(page.nodes.map((n) => n.id)).toEqual([temp, span]);
    const past = await near({ near: place, offset: 10 });
    expect(past).toMatchObject({ total: 4, nodes: [] });
    const makes = await near({ near: place, distinct: 'make' });
    expect(makes).toMatchObject({ total: 3, distinct: 'make' });
    // The nearest car of each make, nearest first.
    expect(makes.nodes.map((n) => n.id)).toEqual([alex, temp, pots]);
  });

  it('shows a user the Listed cars and their own, as every search does', async () => {
    const other = await createUser(h);
    const listed = await carAt(AROUND_BERLIN.alexanderplatz);
    const draft = await carWithStatus(h, owner.actor, 'Draft', {
      homeLocation: { address: 'Tempelhof', ...AROUND_BERLIN.tempelhof },
    });
    const mine = await h.ok<{ cars: NearPage }>(other.actor, NEAR, { near: BERLIN });
    expect(mine.cars.nodes.map((n) => n.id)).toEqual([listed]);
    const owners = await h.ok<{ cars: NearPage }>(asUser(owner.id), NEAR, { near: BERLIN });
    expect(owners.cars.nodes.map((n) => n.id)).toEqual([listed, draft.id]);
  });

  it('distanceKm is null without near, also for a car read beside a near search', async () => {
    const id = await carAt(AROUND_BERLIN.alexanderplatz);
    const d = await h.ok<{ cars: NearPage; near: NearPage; car: Node }>(
      asOps(),
      `query($near: NearInput, $id: UUID!) { cars { nodes { id distanceKm } }
        near: cars(near: $near) { nodes { id distanceKm } } car(id: $id) { id distanceKm } }`,
      { near: BERLIN, id },
    );
    expect(d.cars.nodes).toEqual([{ id, distanceKm: null }]);
    expect(d.near.nodes[0]!.distanceKm).toBeGreaterThan(0.5);
    expect(d.car).toEqual({ id, distanceKm: null });
  });

  it.each([
    ['near', { near: { latitude: 90.0001, longitude: 0 } }, 'OutOfRange'],
    ['near', { near: { latitude: -91, longitude: 0 } }, 'OutOfRange'],
    ['near', { near: { latitude: 0, longitude: 180.5 } }, 'OutOfRange'],
    ['near', { near: { latitude: 0, longitude: -181 } }, 'OutOfRange'],
    ['near', { near: { latitude: 10 } }, 'NotEmpty'],
    ['near', { near: { longitude: 10 } }, 'NotEmpty'],
    ['radiusKm', { near: { ...BERLIN, radiusKm: 0 } }, 'OutOfRange'],
    ['radiusKm', { near: { ...BERLIN, radiusKm: -5 } }, 'OutOfRange'],
    ['radiusKm', { near: { ...BERLIN, radiusKm: 500.001 } }, 'OutOfRange'],
    ['sort', { sort: 'distanceKm' }, 'InvalidValue'],
    ['distinct', { distinct: 'distanceKm' }, 'InvalidValue'],
  ])('refuses a bad %s with %s naming it', async (field, vars, code) => {
    expect(errorOf(await h.run(asOps(), NEAR, vars))).toMatchObject({ code, field });
  });

  it.each([
    ['in a city', { ...BERLIN, radiusKm: 10 }],
    ['across the antimeridian', { latitude: -16.8, longitude: 179.95, radiusKm: 20 }],
  ])('%s, the box is answered from the home-location index', async (_, place) => {
    const plan = await scoped(h.orm).transactional(async (em) => {
      const conn = em.getConnection();
      const tx = em.getTransactionContext();
      // On a few rows a scan is cheaper; forbidding it shows whether the index can answer the condition at all.
      await conn.execute('set local enable_seqscan = off', [], 'run', tx);
      const where = nearSql(place).where.join(' and ');
      return conn.execute<Record<string, string>[]>(
        `explain select id from car where ${where}`,
        [],
        'all',
        tx,
      );
    });
    expect(plan.map((r) => Object.values(r)[0]).join('\n')).toMatch(/car_home_location_index/);
  });

  it('accepts the edges of every range', async () => {
    for (const at of [
      { latitude: 90, longitude: 180, radiusKm: 500 },
      { latitude: -90, longitude: -180, radiusKm: 0.001 },
    ])
      expect((await near({ near: at })).total).toBe(0);
  });
});
