// Bookings by id, batched per request, as plain rows (src/db/rows.ts): for reading only.
import { rowsByUniqueKey } from '../graphql/loaders.js';
import { CarBooking } from './car-booking.entity.js';

export const bookingById = rowsByUniqueKey('bookingById', CarBooking, 'car_booking', 'id', (b) => b.id);
