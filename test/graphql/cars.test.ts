// Cars over GraphQL on real PostgreSQL: create, read, search, update, delete, list/unlist, with every
// validation rule, permission refusal and visibility rule, and the SQL cost of a listing.
// Unavailabilities and the bookings port: unavailabilities.test.ts.
import { describe, expect, it } from 'vitest';
import { createUser, markVerified, outbox } from '../factories/accounts.js';
import {
  CAR,
  CAR_FIELDS,
  CARS,
  CREATE_CAR,
  CREATE_UNAVAILABILITY,
  carInput,
  carWithStatus,
  createCar,
  DELETE_CAR,
  ids,
  LIST_CAR,
  seedCars,
  sql,
  UNLIST_CAR,
  UPDATE_CAR,
} from '../factories/cars.js';
import { anonymous, asClient, asOps, asUser, scopesWithout } from '../support/actors.js';
import { errorOf, useHarness } from '../support/harness.js';

const h = useHarness();

const carCount = async () => Number((await sql<{ n: string }>(h, 'select count(*) as n from car'))[0]!.n);

describe('createCar', () => {
  it('registers a Draft, Locked car for the caller with defaults, its Unverified verifications and no event', async () => {
    const owner = await createUser(h);
    const before = await h.ok<{ me: { isCarOwner: boolean } }>(owner.actor, '{ me { isCarOwner } }');
    expect(before.me.isCarOwner).toBe(false);
    const d = await h.ok<{ createCar: Record<string, any> }>(
      owner.actor,
      `mutation($input: CreateCarInput!) { createCar(input: $input) { ${CAR_FIELDS}
        verifications { kind status subjectType } rating { count average } owner { id displayName } } }`,
      {
        input: carInput({
          make: '  Toyota ',
          hourlyRate: { amount: '12.5', currency: 'eur' },
          color: undefined,
          description: undefined,
        }),
      },
    );
    const car = d.createCar;
    expect(car).toMatchObject({
      ownerId: owner.id,
      make: 'Toyota',
      model: 'Corolla',
      year: 2022,
      color: null,
      transmission: 'Automatic',
      seats: 5,
      description: null,
      licensePlate: { jurisdiction: 'CA', number: '7ABC123' },
      homeLocation: { address: '1 Market St, San Francisco', latitude: 37.7936, longitude: -122.3958 },
      hourlyRate: { amount: '12.50', currency: 'EUR' },
      autoApprove: false,
      minimumBookingMinutes: 60,
      maximumBookingMinutes: 20160,
      status: 'Draft',
      isVerified: false,
      lockState: 'Locked',
      lockStateChangedDateUtc: null,
      createdDateUtc: '2026-07-01T10:00:00.000Z',
      lastModifiedDateUtc: '2026-07-01T10:00:00.000Z',
      rating: { count: 0, average: null },
      owner: { id: owner.profileId, displayName: expect.stringMatching(/^Ada L/) },
    });
    expect(car.verifications.map((v: any) => [v.kind, v.status, v.subjectType])).toEqual([
      ['LicensePlate', 'Unverified', 'Car'],
      ['RoadWorthiness', 'Unverified', 'Car'],
    ]);
    // Cars raise no events: only the owner's sign-up is in the outbox.
    expect((await outbox(h)).map((e) => e.name)).toEqual(['useraccount_create']);
    const after = await h.ok<{ me: { isCarOwner: boolean } }>(owner.actor, '{ me { isCarOwner } }');
    expect(after.me.isCarOwner).toBe(true);
  });

  it('takes every optional field, and the year may be next year by the clock', async () => {
    const owner = await createUser(h);
    const car = await createCar(h, owner.actor, {
      year: 2027,
      autoApprove: true,
      minimumBookingMinutes: 30,
      maximumBookingMinutes: 30,
    });
    expect(car).toMatchObject({
      year: 2027,
      autoApprove: true,
      minimumBookingMinutes: 30,
      maximumBookingMinutes: 30,
    });
    expect(errorOf(await h.run(owner.actor, CREATE_CAR, { input: carInput({ year: 2028 }) }))).toMatchObject({
      code: 'OutOfRange',
      field: 'year',
    });
    h.clock.set('2027-03-01T00:00:00.000Z');
    expect((await createCar(h, owner.actor, { year: 2028 })).year).toBe(2028);
  });

  it.each([
    ['make', { make: undefined }, 'NotEmpty'],
    ['make', { make: ' ' }, 'NotEmpty'],
    ['make', { make: 'T' }, 'TooShort'],
    ['make', { make: 'x'.repeat(51) }, 'TooLong'],
    ['model', { model: null }, 'NotEmpty'],
    ['model', { model: 'x'.repeat(51) }, 'TooLong'],
    ['year', { year: undefined }, 'NotEmpty'],
    ['year', { year: 1899 }, 'OutOfRange'],
    ['color', { color: 'x'.repeat(51) }, 'TooLong'],
    ['transmission', { transmission: undefined }, 'NotEmpty'],
    ['seats', { seats: undefined }, 'NotEmpty'],
    ['seats', { seats: 0 }, 'OutOfRange'],
    ['seats', { seats: 10 }, 'OutOfRange'],
    ['description', { description: 'x'.repeat(5001) }, 'TooLong'],
    ['licensePlate', { licensePlate: undefined }, 'NotEmpty'],
    ['licensePlate.jurisdiction', { licensePlate: { number: 'X1' } }, 'NotEmpty'],
    ['licensePlate.number', { licensePlate: { jurisdiction: 'CA', number: 'x'.repeat(21) } }, 'TooLong'],
    ['homeLocation', { homeLocation: null }, 'NotEmpty'],
    ['homeLocation.address', { homeLocation: { latitude: 1, longitude: 1 } }, 'NotEmpty'],
    [
      'homeLocation.latitude',
      { homeLocation: { address: 'a', latitude: 90.01, longitude: 1 } },
      'OutOfRange',
    ],
    [
      'homeLocation.longitude',
      { homeLocation: { address: 'a', latitude: 1, longitude: -180.5 } },
      'OutOfRange',
    ],
    ['hourlyRate', { hourlyRate: undefined }, 'NotEmpty'],
    ['hourlyRate.amount', { hourlyRate: { amount: '12.345', currency: 'USD' } }, 'InvalidFormat'],
    ['hourlyRate.amount', { hourlyRate: { amount: '-1', currency: 'USD' } }, 'InvalidFormat'],
    ['hourlyRate.amount', { hourlyRate: { amount: 'ten', currency: 'USD' } }, 'InvalidFormat'],
    ['hourlyRate.currency', { hourlyRate: { amount: '1', currency: 'DOLLARS' } }, 'InvalidValue'],
    ['hourlyRate.currency', { hourlyRate: { amount: '1', currency: 'XYZ' } }, 'InvalidValue'],
    ['minimumBookingMinutes', { minimumBookingMinutes: 29 }, 'OutOfRange'],
    ['maximumBookingMinutes', { maximumBookingMinutes: 20161 }, 'OutOfRange'],
    ['maximumBookingMinutes', { minimumBookingMinutes: 120, maximumBookingMinutes: 90 }, 'InvalidValue'],
  ])('refuses an invalid %s (%j) with %s naming it, and creates nothing', async (field, change, code) => {
    const owner = await createUser(h);
    const r = await h.run(owner.actor, CREATE_CAR, { input: carInput(change) });
    expect(errorOf(r)).toMatchObject({ code, field });
    expect(await carCount()).toBe(0);
  });

  it('names every invalid field at once', async () => {
    const owner = await createUser(h);
    const r = await h.run(owner.actor, CREATE_CAR, { input: carInput({ make: 'T', seats: 12 }) });
    expect(r.errors?.[0]?.extensions?.errors?.map((e) => e.field)).toEqual(['make', 'seats']);
  });

  it('lets ops register a car for a user; a user may name only themself; an unknown owner is InvalidValue', async () => {
    const owner = await createUser(h);
    const other = await createUser(h);
    const op = await createUser(h);
    const ops = asOps(op.id);
    const car = await createCar(h, ops, { ownerId: owner.id });
    expect(car.ownerId).toBe(owner.id);
    // The owner, not the operator, is the verifications' subject user: they can submit the evidence.
    const mine = await h.ok<{ verifications: { total: number } }>(
      owner.actor,
      'query($id: UUID) { verifications(subjectId: $id) { total } }',
      { id: car.id },
    );
    expect(mine.verifications.total).toBe(2);
    expect((await createCar(h, ops)).ownerId).toBe(op.id);
    expect((await createCar(h, owner.actor, { ownerId: owner.id })).ownerId).toBe(owner.id);
    const r = await h.run(owner.actor, CREATE_CAR, { input: carInput({ ownerId: other.id }) });
    expect(errorOf(r).code).toBe('Forbidden');
    const unknown = await h.run(ops, CREATE_CAR, {
      input: carInput({ ownerId: '00000000-0000-4000-8000-000000000000' }),
    });
    expect(errorOf(unknown)).toMatchObject({ code: 'InvalidValue', field: 'ownerId' });
    expect(await carCount()).toBe(3);
  });

  it('refuses anonymous (Unauthorized), client applications (Forbidden) and users without cars:write (Forbidden)', async () => {
    const owner = await createUser(h);
    expect(errorOf(await h.run(anonymous, CREATE_CAR, { input: carInput() })).code).toBe('Unauthorized');
    expect(
      errorOf(await h.run(asClient(['cars:write', 'cars:read']), CREATE_CAR, { input: carInput() })).code,
    ).toBe('Forbidden');
    const noScope = asUser(owner.id, scopesWithout('cars:write'));
    expect(errorOf(await h.run(noScope, CREATE_CAR, { input: carInput() })).code).toBe('Forbidden');
    expect(await carCount()).toBe(0);
  });
});

describe('reading cars', () => {
  async function fleet() {
    const a = await createUser(h);
    const b = await createUser(h);
    const a1 = await carWithStatus(h, a.actor, 'Draft');
    h.clock.advance(1000);
    const a2 = await carWithStatus(h, a.actor, 'Listed');
    h.clock.advance(1000);
    const b1 = await carWithStatus(h, b.actor, 'Listed');
    h.clock.advance(1000);
    const b2 = await carWithStatus(h, b.actor, 'Unlisted');
    return { a, b, a1, a2, b1, b2 };
  }

  it('a user sees Listed cars and their own; ops and cars:read apps see all', async () => {
    const { a, b, a1, a2, b1, b2 } = await fleet();
    const forA = await h.ok<{ cars: any }>(a.actor, CARS);
    expect(ids(forA.cars)).toEqual([a1.id, a2.id, b1.id].sort());
    expect(forA.cars.total).toBe(3);
    const forB = await h.ok<{ cars: any }>(b.actor, CARS);
    expect(ids(forB.cars)).toEqual([a2.id, b1.id, b2.id].sort());
    const all = [a1.id, a2.id, b1.id, b2.id].sort();
    expect(ids((await h.ok<{ cars: any }>(asOps(), CARS)).cars)).toEqual(all);
    expect(ids((await h.ok<{ cars: any }>(asClient(['cars:read']), CARS)).cars)).toEqual(all);
    // Filters narrow within what the caller may see: A never sees B's Unlisted car.
    const unlisted = await h.ok<{ cars: any }>(a.actor, CARS, { status: 'Unlisted' });
    expect(unlisted.cars).toMatchObject({ total: 0, nodes: [] });
  });

  it('car(id): a user reads Listed cars and their own; another user’s Draft or Unlisted car is NotFound', async () => {
    const { a, a1, b1, b2 } = await fleet();
    expect((await h.ok<{ car: any }>(a.actor, CAR, { id: a1.id })).car.status).toBe('Draft');
    expect((await h.ok<{ car: any }>(a.actor, CAR, { id: b1.id })).car.id).toBe(b1.id);
    expect(errorOf(await h.run(a.actor, CAR, { id: b2.id })).code).toBe('NotFound');
    expect((await h.ok<{ car: any }>(asOps(), CAR, { id: b2.id })).car.id).toBe(b2.id);
    expect((await h.ok<{ car: any }>(asClient(['cars:read']), CAR, { id: b2.id })).car.id).toBe(b2.id);
    expect(errorOf(await h.run(asOps(), CAR, { id: '00000000-0000-4000-8000-000000000000' })).code).toBe(
      'NotFound',
    );
  });

  it('refuses anonymous (Unauthorized) and callers without cars:read (Forbidden)', async () => {
    const { a, b1 } = await fleet();
    for (const [q, vars] of [
      [CARS, {}],
      [CAR, { id: b1.id }],
    ] as const) {
      expect(errorOf(await h.run(anonymous, q, vars)).code).toBe('Unauthorized');
      expect(errorOf(await h.run(asUser(a.id, scopesWithout('cars:read')), q, vars)).code).toBe('Forbidden');
      expect(errorOf(await h.run(asClient(['users:read']), q, vars)).code).toBe('Forbidden');
    }
  });

  it('filters by status, ownerId and make (whole make, any case)', async () => {
    const { a, b, a2, b1, b2 } = await fleet();
    await carWithStatus(h, b.actor, 'Listed', { make: 'Honda' });
    const listed = await h.ok<{ cars: any }>(asOps(), CARS, { status: 'Listed', ownerId: b.id });
    expect(listed.cars.total).toBe(2);
    expect(listed.cars.nodes.map((n: any) => n.make).sort()).toEqual(['Honda', 'Toyota']);
    const byOwner = await h.ok<{ cars: any }>(a.actor, CARS, { ownerId: b.id });
    expect(ids(byOwner.cars)).toContain(b1.id);
    expect(ids(byOwner.cars)).not.toContain(b2.id);
    const toyotas = await h.ok<{ cars: any }>(asOps(), CARS, { make: 'tOYOTA' });
    expect(toyotas.cars.total).toBe(4);
    expect((await h.ok<{ cars: any }>(asOps(), CARS, { make: 'Toy' })).cars.total).toBe(0);
    expect(ids((await h.ok<{ cars: any }>(a.actor, CARS, { status: 'Listed', ownerId: a.id })).cars)).toEqual(
      [a2.id],
    );
  });

  it('sorts (default -createdDateUtc), pages, and keeps one car per distinct value, echoing what it applied', async () => {
    const { a1, a2, b1, b2 } = await fleet();
    const byDefault = await h.ok<{ cars: any }>(asOps(), CARS);
    expect(byDefault.cars.sort).toEqual({ by: 'createdDateUtc', direction: 'Descending' });
    expect(byDefault.cars.nodes.map((n: any) => n.id)).toEqual([b2.id, b1.id, a2.id, a1.id]);
    expect(byDefault.cars).toMatchObject({ limit: 100, offset: 0, distinct: null });
    await sql(h, 'update car set year = ? where id = ?', [2001, b1.id]);
    const page = await h.ok<{ cars: any }>(asOps(), CARS, { sort: 'YEAR', limit: 2, offset: 0 });
    expect(page.cars).toMatchObject({ total: 4, limit: 2, sort: { by: 'year', direction: 'Ascending' } });
    expect(page.cars.nodes[0].id).toBe(b1.id);
    const second = await h.ok<{ cars: any }>(asOps(), CARS, { sort: '-createdDateUtc', limit: 3, offset: 3 });
    expect(second.cars.nodes.map((n: any) => n.id)).toEqual([a1.id]);
    const past = await h.ok<{ cars: any }>(asOps(), CARS, { offset: 10 });
    expect(past.cars).toMatchObject({ total: 4, nodes: [] });
    await sql(h, `update car set make = 'Honda' where id = ?`, [a2.id]);
    const makes = await h.ok<{ cars: any }>(asOps(), CARS, { distinct: 'make', sort: 'make' });
    expect(makes.cars).toMatchObject({ total: 2, distinct: 'make' });
    expect(makes.cars.nodes.map((n: any) => n.make)).toEqual(['Honda', 'Toyota']);
    const priciest = await h.ok<{ cars: any }>(asOps(), CARS, { sort: '-hourlyRate', limit: 1 });
    expect(priciest.cars.sort).toEqual({ by: 'hourlyRate', direction: 'Descending' });
  });

  it.each([
    ['sort', { sort: 'licensePlate' }, 'InvalidValue'],
    ['limit', { limit: 0 }, 'OutOfRange'],
    ['limit', { limit: 1001 }, 'OutOfRange'],
    ['offset', { offset: -1 }, 'OutOfRange'],
    ['distinct', { distinct: 'nope' }, 'InvalidValue'],
    ['bookableFromUtc', { from: '2026-07-02T12:00:00.000Z', to: '2026-07-02T12:00:00.000Z' }, 'InvalidValue'],
    ['bookableFromUtc', { from: '2026-07-02T13:00:00.000Z', to: '2026-07-02T12:00:00.000Z' }, 'InvalidValue'],
    ['bookableToUtc', { from: '2026-07-02T12:00:00.000Z' }, 'NotEmpty'],
    ['bookableFromUtc', { to: '2026-07-02T12:00:00.000Z' }, 'NotEmpty'],
  ])('refuses a bad %s with %s naming it', async (field, vars, code) => {
    expect(errorOf(await h.run(asOps(), CARS, vars))).toMatchObject({ code, field });
  });

  it('bookable period: only cars with no unavailability overlapping the whole half-open period', async () => {
    const owner = await createUser(h);
    const busy = await carWithStatus(h, owner.actor, 'Listed');
    const free = await carWithStatus(h, owner.actor, 'Listed');
    await h.ok(owner.actor, CREATE_UNAVAILABILITY, {
      carId: busy.id,
      input: { startDateUtc: '2026-07-02T10:00:00.000Z', endDateUtc: '2026-07-02T12:00:00.000Z' },
    });
    const bookable = async (from: string, to: string, extra: Record<string, unknown> = {}) =>
      ids((await h.ok<{ cars: any }>(owner.actor, CARS, { from, to, ...extra })).cars);
    expect(await bookable('2026-07-02T11:00:00.000Z', '2026-07-02T13:00:00.000Z')).toEqual([free.id]);
    expect(await bookable('2026-07-02T09:00:00.000Z', '2026-07-02T10:30:00.000Z')).toEqual([free.id]);
    expect(await bookable('2026-07-02T10:15:00.000Z', '2026-07-02T10:45:00.000Z')).toEqual([free.id]);
    // Back to back on either side is free.
    const both = [busy.id, free.id].sort();
    expect(await bookable('2026-07-02T12:00:00.000Z', '2026-07-02T14:00:00.000Z')).toEqual(both);
    expect(await bookable('2026-07-02T08:00:00.000Z', '2026-07-02T10:00:00.000Z')).toEqual(both);
    // The condition holds inside a distinct search too.
    expect(
      await bookable('2026-07-02T11:00:00.000Z', '2026-07-02T13:00:00.000Z', { distinct: 'make' }),
    ).toEqual([free.id]);
  });
});

describe('updateCar', () => {
  it('changes only the fields given, clears optional ones with null, replaces value objects whole', async () => {
    const owner = await createUser(h);
    const car = await createCar(h, owner.actor);
    h.clock.advance(60_000);
    const d = await h.ok<{ updateCar: any }>(owner.actor, UPDATE_CAR, {
      id: car.id,
      input: {
        seats: 7,
        color: null,
        homeLocation: { address: '2 Pine St', latitude: -33.86, longitude: 151.2 },
        hourlyRate: { amount: '20', currency: 'AUD' },
        autoApprove: true,
        maximumBookingMinutes: 600,
      },
    });
    expect(d.updateCar).toMatchObject({
      make: 'Toyota',
      seats: 7,
      color: null,
      description: 'Clean and quiet',
      homeLocation: { address: '2 Pine St', latitude: -33.86, longitude: 151.2 },
      hourlyRate: { amount: '20.00', currency: 'AUD' },
      autoApprove: true,
      minimumBookingMinutes: 60,
      maximumBookingMinutes: 600,
      createdDateUtc: '2026-07-01T10:00:00.000Z',
      lastModifiedDateUtc: '2026-07-01T10:01:00.000Z',
    });
    // What was stored is what a fresh read sees.
    expect((await h.ok<{ car: any }>(owner.actor, CAR, { id: car.id })).car).toEqual(d.updateCar);
  });

  it('a new licence plate resets the LicensePlate verification (with its event); other changes do not', async () => {
    const owner = await createUser(h);
    const car = await createCar(h, owner.actor);
    await markVerified(h, 'Car', car.id);
    const verified = async () =>
      (
        await h.ok<{ car: any }>(
          owner.actor,
          `query($id: UUID!) { car(id: $id) { isVerified verifications { kind status } } }`,
          {
            id: car.id,
          },
        )
      ).car;
    expect((await verified()).isVerified).toBe(true);
    await h.ok(owner.actor, UPDATE_CAR, {
      id: car.id,
      input: { make: 'Lexus', licensePlate: { jurisdiction: 'CA', number: '7ABC123' } },
    });
    expect((await verified()).isVerified).toBe(true);
    expect((await outbox(h)).map((e) => e.name)).toEqual(['useraccount_create']);
    await h.ok(owner.actor, UPDATE_CAR, {
      id: car.id,
      input: { licensePlate: { jurisdiction: 'NV', number: '7ABC123' } },
    });
    const after = await verified();
    expect(after.isVerified).toBe(false);
    expect(after.verifications).toEqual([
      { kind: 'LicensePlate', status: 'Unverified' },
      { kind: 'RoadWorthiness', status: 'Verified' },
    ]);
    const events = await outbox(h);
    expect(events.map((e) => e.name)).toEqual(['useraccount_create', 'verification_update']);
    expect(events[1]!.payload).toMatchObject({ SubjectType: 'Car', SubjectId: car.id, Kind: 'LicensePlate' });
  });

  it.each([
    ['make', { make: null }, 'NotEmpty'],
    ['model', { model: 'x' }, 'TooShort'],
    ['year', { year: 2028 }, 'OutOfRange'],
    ['seats', { seats: 10 }, 'OutOfRange'],
    ['licensePlate', { licensePlate: null }, 'NotEmpty'],
    ['licensePlate.number', { licensePlate: { jurisdiction: 'CA' } }, 'NotEmpty'],
    ['hourlyRate.amount', { hourlyRate: { amount: '1.999', currency: 'USD' } }, 'InvalidFormat'],
    ['description', { description: 'x'.repeat(5001) }, 'TooLong'],
    ['maximumBookingMinutes', { maximumBookingMinutes: 45 }, 'InvalidValue'],
    [
      'minimumBookingMinutes',
      { minimumBookingMinutes: 20160, maximumBookingMinutes: undefined },
      'InvalidValue',
    ],
  ])('refuses an invalid %s (%j) with %s naming it, and changes nothing', async (field, input, code) => {
    const owner = await createUser(h);
    const car = await createCar(h, owner.actor, { maximumBookingMinutes: 120 });
    const r = await h.run(owner.actor, UPDATE_CAR, { id: car.id, input });
    expect(errorOf(r)).toMatchObject({ code, field });
    expect((await h.ok<{ car: any }>(owner.actor, CAR, { id: car.id })).car).toEqual(car);
  });

  it('ops may update any car; a stranger gets NotFound even for a Listed car; refusals by class and scope', async () => {
    const owner = await createUser(h);
    const stranger = await createUser(h);
    const car = await carWithStatus(h, owner.actor, 'Listed');
    const vars = { id: car.id, input: { seats: 2 } };
    expect((await h.ok<{ updateCar: any }>(asOps(), UPDATE_CAR, vars)).updateCar.seats).toBe(2);
    expect(errorOf(await h.run(stranger.actor, UPDATE_CAR, vars)).code).toBe('NotFound');
    expect(errorOf(await h.run(anonymous, UPDATE_CAR, vars)).code).toBe('Unauthorized');
    expect(errorOf(await h.run(asClient(['cars:write']), UPDATE_CAR, vars)).code).toBe('Forbidden');
    expect(errorOf(await h.run(asUser(owner.id, scopesWithout('cars:write')), UPDATE_CAR, vars)).code).toBe(
      'Forbidden',
    );
    expect(
      errorOf(await h.run(owner.actor, UPDATE_CAR, { ...vars, id: '00000000-0000-4000-8000-000000000000' }))
        .code,
    ).toBe('NotFound');
  });
});

describe('listCar and unlistCar', () => {
  it('Draft → Listed → Unlisted → Listed; listing twice or unlisting a Draft changes nothing', async () => {
    const owner = await createUser(h);
    const car = await createCar(h, owner.actor);
    const unlistDraft = await h.ok<{ unlistCar: any }>(owner.actor, UNLIST_CAR, { id: car.id });
    expect(unlistDraft.unlistCar).toMatchObject({
      status: 'Draft',
      lastModifiedDateUtc: car.lastModifiedDateUtc,
    });
    h.clock.advance(1000);
    const listed = await h.ok<{ listCar: any }>(owner.actor, LIST_CAR, { id: car.id });
    expect(listed.listCar).toMatchObject({
      status: 'Listed',
      lastModifiedDateUtc: '2026-07-01T10:00:01.000Z',
    });
    h.clock.advance(1000);
    const again = await h.ok<{ listCar: any }>(owner.actor, LIST_CAR, { id: car.id });
    expect(again.listCar).toMatchObject({
      status: 'Listed',
      lastModifiedDateUtc: '2026-07-01T10:00:01.000Z',
    });
    expect((await h.ok<{ unlistCar: any }>(owner.actor, UNLIST_CAR, { id: car.id })).unlistCar.status).toBe(
      'Unlisted',
    );
    expect((await h.ok<{ listCar: any }>(asOps(), LIST_CAR, { id: car.id })).listCar.status).toBe('Listed');
    expect((await h.ok<{ unlistCar: any }>(asOps(), UNLIST_CAR, { id: car.id })).unlistCar.status).toBe(
      'Unlisted',
    );
  });

  it('refuses strangers (NotFound), anonymous (Unauthorized), client applications and missing cars:write (Forbidden)', async () => {
    const owner = await createUser(h);
    const stranger = await createUser(h);
    const car = await carWithStatus(h, owner.actor, 'Listed');
    for (const m of [LIST_CAR, UNLIST_CAR]) {
      expect(errorOf(await h.run(stranger.actor, m, { id: car.id })).code).toBe('NotFound');
      expect(errorOf(await h.run(anonymous, m, { id: car.id })).code).toBe('Unauthorized');
      expect(errorOf(await h.run(asClient(['cars:write']), m, { id: car.id })).code).toBe('Forbidden');
      expect(
        errorOf(await h.run(asUser(owner.id, scopesWithout('cars:write')), m, { id: car.id })).code,
      ).toBe('Forbidden');
    }
    expect((await h.ok<{ car: any }>(owner.actor, CAR, { id: car.id })).car.status).toBe('Listed');
  });
});

describe('deleteCar', () => {
  it('removes the car with its verifications and unavailabilities; by the owner or ops', async () => {
    const owner = await createUser(h);
    const car = await createCar(h, owner.actor);
    await h.ok(owner.actor, CREATE_UNAVAILABILITY, {
      carId: car.id,
      input: { startDateUtc: '2026-07-02T10:00:00.000Z', endDateUtc: '2026-07-02T12:00:00.000Z' },
    });
    expect((await h.ok<{ deleteCar: any }>(owner.actor, DELETE_CAR, { id: car.id })).deleteCar).toEqual({
      id: car.id,
    });
    expect(errorOf(await h.run(owner.actor, CAR, { id: car.id })).code).toBe('NotFound');
    expect(await carCount()).toBe(0);
    const left = await sql<{ n: string }>(
      h,
      `select (select count(*) from verification where subject_id = ?) + (select count(*) from unavailability) as n`,
      [car.id],
    );
    expect(Number(left[0]!.n)).toBe(0);
    expect((await h.ok<{ me: any }>(owner.actor, '{ me { isCarOwner } }')).me.isCarOwner).toBe(false);
    const other = await createCar(h, owner.actor);
    expect((await h.ok<{ deleteCar: any }>(asOps(), DELETE_CAR, { id: other.id })).deleteCar.id).toBe(
      other.id,
    );
    expect(errorOf(await h.run(owner.actor, DELETE_CAR, { id: other.id })).code).toBe('NotFound');
  });

  it('refuses strangers (NotFound), anonymous (Unauthorized), client applications and missing cars:write (Forbidden)', async () => {
    const owner = await createUser(h);
    const stranger = await createUser(h);
    const car = await carWithStatus(h, owner.actor, 'Listed');
    expect(errorOf(await h.run(stranger.actor, DELETE_CAR, { id: car.id })).code).toBe('NotFound');
    expect(errorOf(await h.run(anonymous, DELETE_CAR, { id: car.id })).code).toBe('Unauthorized');
    expect(errorOf(await h.run(asClient(['cars:write']), DELETE_CAR, { id: car.id })).code).toBe('Forbidden');
    expect(
      errorOf(await h.run(asUser(owner.id, scopesWithout('cars:write')), DELETE_CAR, { id: car.id })).code,
    ).toBe('Forbidden');
    expect(await carCount()).toBe(1);
  });
});

describe('UserAccount.isCarOwner', () => {
  it('is true for users owning any car, answered in one statement for a whole page of accounts', async () => {
    const owners = [await createUser(h), await createUser(h)];
    const others = [await createUser(h), await createUser(h)];
    await carWithStatus(h, owners[0]!.actor, 'Draft');
    await carWithStatus(h, owners[1]!.actor, 'Listed');
    await carWithStatus(h, owners[1]!.actor, 'Unlisted');
    h.sql.length = 0;
    const d = await h.ok<{ userAccounts: any }>(asOps(), '{ userAccounts { nodes { id isCarOwner } } }');
    const byId = Object.fromEntries(d.userAccounts.nodes.map((n: any) => [n.id, n.isCarOwner]));
    expect(byId).toEqual({
      [owners[0]!.id]: true,
      [owners[1]!.id]: true,
      [others[0]!.id]: false,
      [others[1]!.id]: false,
    });
    expect(h.sql.filter((s) => /from "?car"?/.test(s))).toHaveLength(1);
  });
});

describe('the SQL cost of a listing', () => {
  const LISTING = `{ cars(limit: 1000) { total nodes { id isVerified rating { count average }
    verifications { kind status } owner { displayName } } } }`;

  async function statementsFor(n: number, owners: readonly string[]): Promise<string[]> {
    await sql(h, 'delete from car');
    await sql(h, `delete from verification where subject_type = 'Car'`);
    await sql(h, `delete from rating where subject_type = 'Car'`);
    await seedCars(h, owners, n);
    h.sql.length = 0;
    const d = await h.ok<{ cars: any }>(asClient(['cars:read']), LISTING);
    expect(d.cars.total).toBe(n);
    expect(d.cars.nodes).toHaveLength(n);
    for (const c of d.cars.nodes) {
      expect(c.isVerified).toBe(true);
      expect(c.rating).toEqual({ count: 2, average: 4.5 });
      expect(c.verifications.map((v: any) => v.kind)).toEqual(['LicensePlate', 'RoadWorthiness']);
      expect(c.owner.displayName).toMatch(/^Ada L/);
    }
    return [...h.sql];
  }

  it('is one statement for 10 and for 100 cars with rating, verifications and owner', async () => {
    const owners = [];
    for (let i = 0; i < 3; i++) owners.push((await createUser(h)).id);
    const ten = await statementsFor(10, owners);
    const hundred = await statementsFor(100, owners);
    expect(ten.length).toBe(1);
    expect(hundred.length).toBe(1);
  });
});
