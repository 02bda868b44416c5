// Bookings' answer to the cars subdomain's CarOccupancy port (src/cars/car-occupancy.ts), wired in src/modules.ts.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CarOccupancy, SqlCondition } from '../cars/car-occupancy.js';
import { occupyingStates, openStates, sqlStates } from './car-booking.entity.js';

export const bookingOccupancy: CarOccupancy = {
  async hasOpenBookings(em: EntityManager, carId: string): Promise<boolean> {
    const rows = await em
      .getConnection()
      .execute<{ open: boolean }[]>(
        `select exists (select 1 from car_booking where car_id = ? and state in (${sqlStates(openStates)})) as open`,
        [carId],
        'all',
        em.getTransactionContext(),
      );
    return rows[0]?.open === true;
  },
  occupiedOver(carIdSql: string, from: Date, to: Date): SqlCondition {
    return {
      sql: `exists (select 1 from car_booking ob where ob.car_id = ${carIdSql} and ob.state in (${sqlStates(occupyingStates)}) and ob.start_date_utc < ? and ob.end_date_utc > ?)`,
      params: [to, from],
    };
  },
};
