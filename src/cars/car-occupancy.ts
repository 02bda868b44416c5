// The port through which cars learn about bookings without importing them (cars never import bookings).
//
// Why a port: deleting a car, declaring it unavailable and searching for free cars all depend on bookings,
// but bookings depend on cars. So cars states the two questions it needs answered, and the bookings
// subdomain answers them; src/modules.ts wires the answer in. Until bookings exist, nothing is booked.
import type { EntityManager } from '@mikro-orm/postgresql';
import { carShareIdOf } from '../db/car-share-condition.js';
import { runSql } from '../db/rows.js';

/** A SQL fragment with `?` placeholders and their values, in order. */
export interface SqlCondition {
  sql: string;
  params: unknown[];
}

export interface CarOccupancy {
  /** Whether the car has bookings not yet in a terminal state (they forbid deleting it). */
  hasOpenBookings(em: EntityManager, carId: string): Promise<boolean>;
  /**
   * A condition, true when the car whose id is the SQL expression `carIdSql` is taken by a booking
   * (Approved or InUse) overlapping the half-open period [from, to). Used inside car searches and checks; the
   * rows it reads are the car share's (`car_share_id = ?`, CONTRACT §25).
   */
  occupiedOver(carIdSql: string, from: Date, to: Date, carShareId: string): SqlCondition;
}

/** The occupancy of a world without bookings: no car is ever booked. */
export const noBookings: CarOccupancy = {
  hasOpenBookings: async () => false,
  occupiedOver: () => ({ sql: 'false', params: [] }),
};

/** Whether the car is occupied over [from, to), by running the port's condition on its own. */
export async function isOccupied(
  em: EntityManager,
  occupancy: CarOccupancy,
  carId: string,
  from: Date,
  to: Date,
): Promise<boolean> {
  const c = occupancy.occupiedOver('c.id', from, to, carShareIdOf(em));
  const rows = await runSql<{ occupied: boolean }>(
    em,
    `select (${c.sql}) as occupied from (select ?::uuid as id) c`,
    [...c.params, carId],
  );
  return rows[0]?.occupied === true;
}
