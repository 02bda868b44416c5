// Bookings by id, batched per request.
import { byKey, defineLoader } from '../graphql/loaders.js';
import { CarBooking } from './car-booking.entity.js';

export const bookingById = defineLoader<string, CarBooking | null>('bookingById', async (em, ids) =>
  byKey(ids, await em.find(CarBooking, { id: { $in: [...ids] } }), (b) => b.id, null),
);
