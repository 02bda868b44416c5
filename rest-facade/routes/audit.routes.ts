// The audit trail (CONTRACT §18): ops, or client applications with `reports:read`. An entry is written by the
// change it records, so a cached page goes stale whenever a resource an entry can be about changes.
import type { RouteModule } from '../route.types.js';

export const auditRoutes: RouteModule = {
  routes: [
    {
      method: 'GET',
      path: '/audit',
      operation: 'auditEntries',
      dependsOn: [
        'UserAccount',
        'Profile',
        'Car',
        'Unavailability',
        'CarBooking',
        'Verification',
        'ClientApplication',
        'WebhookSubscription',
      ],
      summary: 'Search the audit trail of administrative changes',
    },
  ],
};
