// Cars for tests: one through the real createCar mutation, or many at once with plain SQL for read tests.
import type { Actor } from '../../src/access/actor.js';
import type { Harness } from '../support/harness.js';
import { scopedSql } from '../support/scope.js';

/** A complete, valid CreateCarInput; overrides replace fields (undefined removes one). */
export function carInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const input: Record<string, unknown> = {
    make: 'Toyota',
    model: 'Corolla',
    year: 2022,
    color: 'Blue',
    transmission: 'Automatic',
    seats: 5,
    description: 'Clean and quiet',
    licensePlate: { jurisdiction: 'CA', number: '7ABC123' },
    homeLocation: { address: '1 Market St, San Francisco', latitude: 37.7936, longitude: -122.3958 },
    hourlyRate: { amount: '12.50', currency: 'USD' },
    ...overrides,
  };
  for (const [k, v] of Object.entries(input)) if (v === undefined) delete input[k];
  return input;
}

export const CAR_FIELDS = `id ownerId make model year color transmission seats description
  licensePlate { jurisdiction number } homeLocation { address latitude longitude } hourlyRate { amount currency }
  autoApprove minimumBookingMinutes maximumBookingMinutes status isVerified lockState lockStateChangedDateUtc
  createdDateUtc lastModifiedDateUtc`;

export const CREATE_CAR = `mutation($input: CreateCarInput!) { createCar(input: $input) { ${CAR_FIELDS} } }`;

export const CAR = `query($id: UUID!) { car(id: $id) { ${CAR_FIELDS} } }`;
export const UPDATE_CAR = `mutation($id: UUID!, $input: UpdateCarInput!) {
  updateCar(id: $id, input: $input) { ${CAR_FIELDS} } }`;
export const DELETE_CAR = 'mutation($id: UUID!) { deleteCar(id: $id) { id } }';
export const LIST_CAR = 'mutation($id: UUID!) { listCar(id: $id) { id status lastModifiedDateUtc } }';
export const UNLIST_CAR = 'mutation($id: UUID!) { unlistCar(id: $id) { id status lastModifiedDateUtc } }';
export const CARS = `query($status: CarStatus, $ownerId: UUID, $make: String, $from: DateTime, $to: DateTime,
  $sort: String, $limit: Int, $offset: Int, $distinct: String) {
  cars(status: $status, ownerId: $ownerId, make: $make, bookableFromUtc: $from, bookableToUtc: $to,
    sort: $sort, limit: $limit, offset: $offset, distinct: $distinct) {
    total limit offset sort { by direction } distinct nodes { id make model year status ownerId } } }`;
export const CREATE_UNAVAILABILITY = `mutation($carId: UUID!, $input: CreateUnavailabilityInput!) {
  createUnavailability(carId: $carId, input: $input) {
    id carId startDateUtc endDateUtc reason note createdDateUtc lastModifiedDateUtc } }`;
export const UNAVAILABILITIES = `query($carId: UUID!, $sort: String, $limit: Int, $offset: Int, $distinct: String) {
  unavailabilities(carId: $carId, sort: $sort, limit: $limit, offset: $offset, distinct: $distinct) {
    total limit offset sort { by direction } distinct nodes { id startDateUtc reason } } }`;
export const DELETE_UNAVAILABILITY =
  'mutation($carId: UUID!, $id: UUID!) { deleteUnavailability(carId: $carId, id: $id) { id } }';

/** A CreateUnavailabilityInput in July 2026: `period('3T10', '3T12')` is the 3rd, 10:00 to 12:00. */
export const period = (start: string, end: string, extra: Record<string, unknown> = {}) => ({
  startDateUtc: `2026-07-0${start}:00:00.000Z`,
  endDateUtc: `2026-07-0${end}:00:00.000Z`,
  ...extra,
});

/** A page's node ids, sorted, for order-free comparisons. */
export const ids = (page: { nodes: { id: string }[] }) => page.nodes.map((n) => n.id).sort();

export async function createCar(
  h: Harness,
  actor: Actor,
  overrides: Record<string, unknown> = {},
): Promise<Record<string, any>> {
  const d = await h.ok<{ createCar: Record<string, any> }>(actor, CREATE_CAR, { input: carInput(overrides) });
  return d.createCar;
}

/** Creates a car and sets its status directly (a Listed car, an Unlisted one) for visibility tests. */
export async function carWithStatus(
  h: Harness,
  actor: Actor,
  status: 'Draft' | 'Listed' | 'Unlisted',
  overrides: Record<string, unknown> = {},
): Promise<Record<string, any>> {
  const car = await createCar(h, actor, overrides);
  await sql(h, 'update car set status = ? where id = ?', [status, car.id]);
  return { ...car, status };
}

export async function sql<T = Record<string, unknown>>(h: Harness, text: string, params: unknown[] = []) {
  return scopedSql<T>(h.orm, text, params);
}

/**
 * `n` Listed cars spread over the owners, each with its two required verifications and a rating, in one
 * statement: fast enough to seed hundreds.
 */
export async function seedCars(h: Harness, ownerIds: readonly string[], n: number): Promise<string[]> {
  const owners = ownerIds.map(() => '?::uuid').join(', ');
  const rows = await sql<{ id: string }>(
    h,
    `with c as (
       insert into car (id, owner_id, make, model, year, color, transmission, seats, description,
         license_plate_jurisdiction, license_plate_number, home_address, home_latitude, home_longitude,
         hourly_rate_amount, hourly_rate_currency, auto_approve, minimum_booking_minutes, maximum_booking_minutes,
         status, lock_state, lock_state_changed_date_utc, created_date_utc, last_modified_date_utc)
       select gen_random_uuid(), (array[${owners}])[1 + i % ${ownerIds.length}], 'Make' || (i % 7),
         'Model ' || i, 2000 + i % 25, 'Red', 'Manual', 1 + i % 9, null, 'CA', 'SEED' || i,
         i || ' Seed Street', 37.5, -122.2, 10 + i % 10, 'USD', false, 60, 20160, 'Listed', 'Locked', null,
         ?::timestamptz + i * interval '1 second', ?::timestamptz + i * interval '1 second'
       from generate_series(1, ?::int) i
       returning id, owner_id, created_date_utc),
     v as (
       insert into verification (id, subject_type, subject_id, subject_user_id, kind, status, created_date_utc,
         last_modified_date_utc)
       select gen_random_uuid(), 'Car', c.id, c.owner_id, k.kind, 'Verified', c.created_date_utc, c.created_date_utc
       from c cross join (values ('LicensePlate'), ('RoadWorthiness')) k(kind)),
     r as (
       insert into rating (id, subject_type, subject_id, count, average, created_date_utc, last_modified_date_utc)
       select gen_random_uuid(), 'Car', c.id, 2, 4.5, c.created_date_utc, c.created_date_utc from c)
     select id from c`,
    [...ownerIds, h.clock.now(), h.clock.now(), n],
  );
  return rows.map((r) => r.id);
}
