// Bookings by id, batched per request, as plain rows (src/db/rows.ts): for reading only.
import { placeholders, readRows } from '../db/rows.js';
import { byKey, defineLoader } from '../graphql/loaders.js';
import { CarBooking } from './car-booking.entity.js';

export const bookingById = defineLoader<string, CarBooking | null>('bookingById', async (em, ids) =>
  byKey(
    ids,
    await readRows(
      em,
      CarBooking,
      `select * from car_booking where id in (${placeholders(ids.length)})`,
      ids,
    ),
    (b) => b.id,
    null,
  ),
);
