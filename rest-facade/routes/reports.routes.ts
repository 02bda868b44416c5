// The summary report (CONTRACT §7): ops, or `reports:read`. Its counts come from bookings, accounts, cars and
// verifications, so a change to any of them makes a cached summary stale.
import type { RouteModule } from '../route.types.js';

export const reportRoutes: RouteModule = {
  routes: [
    {
      method: 'GET',
      path: '/reports/summary',
      operation: 'summary',
      dependsOn: ['CarBooking', 'UserAccount', 'Car', 'Verification'],
      ttl: 30,
      summary:
        'Counts of bookings by state, users, cars, and bookings created, used and completed in a range',
    },
  ],
};
