// Car bookings, their actions, feedback on them, and locking cars (CONTRACT §6, §7). The CarBooking type
// is `Booking` in REST. Every action can change which cars are bookable, so cached cars go stale too.
import type { RouteDef, RouteModule } from '../route.types.js';

const actions = ['approve', 'decline', 'cancel', 'use', 'extend', 'return', 'complete'] as const;

const action = (verb: (typeof actions)[number]): RouteDef => ({
  method: 'PUT',
  path: `/bookings/{Id}/${verb}`,
  operation: `${verb}Booking`,
  invalidates: ['Car'],
  summary: `${verb.charAt(0).toUpperCase()}${verb.slice(1)} a booking`,
});

export const bookingRoutes: RouteModule = {
  names: [{ type: 'CarBooking', rest: 'Booking' }],
  routes: [
    { method: 'GET', path: '/bookings', operation: 'bookings', summary: "Search the caller's bookings" },
    { method: 'GET', path: '/bookings/{Id}', operation: 'booking', summary: 'Get a booking' },
    ...actions.map(action),
    {
      method: 'GET',
      path: '/cars/{Id}/bookings',
      operation: 'carBookings',
      params: { Id: 'carId' },
      summary: "Search a car's bookings",
    },
    {
      method: 'POST',
      path: '/cars/{Id}/bookings',
      operation: 'requestBooking',
      params: { Id: 'carId' },
      invalidates: ['Car'],
      summary: 'Request a booking',
    },
    {
      method: 'POST',
      path: '/bookings/{Id}/feedbacks',
      operation: 'createFeedback',
      params: { Id: 'carBookingId' },
      invalidates: ['CarBooking', 'Rating'],
      summary: 'Leave feedback on a booking',
    },
    { method: 'PUT', path: '/cars/{Id}/lock', operation: 'lockCar', summary: 'Lock a car' },
    { method: 'PUT', path: '/cars/{Id}/unlock', operation: 'unlockCar', summary: 'Unlock a car' },
  ],
};
