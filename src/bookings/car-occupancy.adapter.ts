// Bookings' answer to the cars subdomain's CarOccupancy port (src/cars/car-occupancy.ts), wired in src/modules.ts.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CarOccupancy, SqlCondition } from '../cars/car-occupancy.js';
import { carShareIdOf } from '../db/car-share-condition.js';
import { runSql } from '../db/rows.js';
import { occupyingStates, openStates, sqlStates } from './car-booking.entity.js';

export const bookingOccupancy: CarOccupancy = {
  async hasOpenBookings(em: EntityManager, carId: string): Promise<boolean> {
    const rows = await runSql<{ open: boolean }>(
      em,
      `select exists (select 1 from car_booking
         where car_share_id = ? and car_id = ? and state in (${sqlStates(openStates)})) as open`,
      [carShareIdOf(em), carId],
    );
    return rows[0]?.open === true;
  },
  occupiedOver(carIdSql: string, from: Date, to: Date, carShareId: string): SqlCondition {
    return {
      sql: `exists (select 1 from car_booking ob where ob.car_share_id = ? and ob.car_id = ${carIdSql} and ob.state in (${sqlStates(occupyingStates)}) and ob.start_date_utc < ? and ob.end_date_utc > ?)`,
      params: [carShareId, to, from],
    };
  },
};
