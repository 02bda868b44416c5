// Reading cars: the search with its visibility rule, filters and bookable period, and one car by id.
import { carShareIdOf } from '../db/car-share-condition.js';
import { searchRows } from '../db/search.js';
import type { Read, View } from '../db/views.js';
import type { Context } from '../graphql/context.js';
import { notFound } from '../shared/errors.js';
import { checkRange, type Page, type PageArgs, pageRequest } from '../shared/pagination.js';
import { Check } from '../shared/validation.js';
import type { Car } from './car.entity.js';
import { canSeeCar, seesAllCars } from './car.rules.js';
import { type CarEmbeds, carColumns, type EmbedRow, loadCarWithEmbeds, primeEmbeds } from './car-embeds.js';
import { type NearInput, nearArgument, nearSql } from './car-near.js';
import type { CarOccupancy } from './car-occupancy.js';

/** Sortable (and distinct-able) fields; each has an index led by its column (see the cars migration). */
const columns = {
  createdDateUtc: 'created_date_utc',
  lastModifiedDateUtc: 'last_modified_date_utc',
  make: 'make',
  model: 'model',
  year: 'year',
  seats: 'seats',
  hourlyRate: 'hourly_rate_amount',
  status: 'status',
  ownerId: 'owner_id',
} as const;

export interface CarFilter extends PageArgs {
  status?: string | null;
  ownerId?: string | null;
  make?: string | null;
  bookableFromUtc?: Date | null;
  bookableToUtc?: Date | null;
  near?: NearInput | null;
}

/** A car found by a `near` search, with its distance from the place (kilometres, 3 decimals). */
export type CarNear = View<Car> & { distanceKm: number };

/** The bookable period comes whole: both ends, the start first. */
function bookablePeriod(args: CarFilter): { from: Date; to: Date } | null {
  const from = args.bookableFromUtc ?? null;
  const to = args.bookableToUtc ?? null;
  if (from === null && to === null) return null;
  const check = new Check();
  if (from === null) check.add('NotEmpty', 'bookableFromUtc', 'BookableFromUtc is needed with BookableToUtc');
  if (to === null) check.add('NotEmpty', 'bookableToUtc', 'BookableToUtc is needed with BookableFromUtc');
  check.throwIfAny();
  checkRange('bookableFromUtc', from, 'bookableToUtc', to);
  return { from: from!, to: to! };
}

/**
 * A page of cars as views (src/db/views.ts), with the embeds `embeds` asks for read by the same statement: each car's
 * as json columns beside it, which prime the embeds' loaders (car-embeds.ts). A 100-car page with every embed was
 * four statements (the cars, then their ratings, verifications and owners as the loaders asked), each a round trip
 * and a write to PostgreSQL, and the rows were copied and their dates made twice (test/bench, S1).
 */
export async function searchCars(
  ctx: Context,
  occupancy: CarOccupancy,
  args: CarFilter,
  embeds: CarEmbeds,
): Promise<Page<View<Car>>> {
  const near = nearArgument(args.near);
  const nearby = near && nearSql(near);
  const sortable: Record<string, string> = nearby ? { ...columns, distanceKm: nearby.distanceKm } : columns;
  const page = pageRequest(args, {
    fields: Object.keys(sortable),
    defaultSort: nearby ? 'distanceKm' : '-createdDateUtc',
  });
  const period = bookablePeriod(args);
  const where: string[] = nearby ? [...nearby.where] : [];
  const params: unknown[] = [];
  if (!seesAllCars(ctx.actor)) {
    where.push(`(status = 'Listed' or owner_id = ?)`);
    params.push(ctx.actor.id);
  }
  if (args.status) {
    where.push('status = ?');
    params.push(args.status);
  }
  if (args.ownerId) {
    where.push('owner_id = ?');
    params.push(args.ownerId);
  }
  if (args.make?.trim()) {
    where.push('lower(make) = lower(?)');
    params.push(args.make.trim());
  }
  if (period) {
    // Free for the whole half-open period: no unavailability and no booking overlaps it.
    const carShareId = carShareIdOf(ctx.em);
    where.push(
      'not exists (select 1 from unavailability u where u.car_share_id = ? and u.car_id = car.id and u.start_date_utc < ? and u.end_date_utc > ?)',
    );
    params.push(carShareId, period.to, period.from);
    const occupied = occupancy.occupiedOver('car.id', period.from, period.to, carShareId);
    where.push(`not (${occupied.sql})`);
    params.push(...occupied.params);
  }
  const em = ctx.em;
  const selected = carColumns(em, embeds, 'car');
  const { rows, total } = await searchRows<EmbedRow & { car: View<Car>; distance_km?: number }>(
    em,
    {
      table: 'car',
      where,
      params,
      columns: sortable,
      ...(nearby ? { computed: { distance_km: nearby.distanceKm } } : {}),
      select: { sql: selected.select, params: selected.params(carShareIdOf(em)) },
    },
    page,
  );
  const nodes = rows.map((row) => {
    const car = row.car;
    primeEmbeds(ctx, car, row, embeds);
    // The distance belongs to this search, not to the car: it rides on this search's own nodes only.
    return nearby ? Object.assign(car, { distanceKm: row.distance_km as number }) : car;
  });
  return { ...page, total, nodes };
}

/** One car, read with the embeds its selection asks for (car-embeds.ts). */
export async function getCar(ctx: Context, id: string, embeds: CarEmbeds): Promise<Read<Car>> {
  const car = await loadCarWithEmbeds(ctx, id, embeds);
  if (!car || !canSeeCar(ctx.actor, car)) throw notFound('Car');
  return car;
}
