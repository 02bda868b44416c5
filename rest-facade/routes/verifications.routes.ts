// Verifications of users and cars (CONTRACT §7). A decision changes what accounts and cars show as verified.
import type { RouteModule } from '../route.types.js';

const decided = ['UserAccount', 'Car', 'CarBooking'] as const;

export const verificationRoutes: RouteModule = {
  routes: [
    { method: 'GET', path: '/verifications', operation: 'verifications', summary: 'Search verifications' },
    { method: 'GET', path: '/verifications/{Id}', operation: 'verification', summary: 'Get a verification' },
    {
      method: 'PUT',
      path: '/verifications/{Id}/submit',
      operation: 'submitVerification',
      invalidates: decided,
      summary: 'Submit evidence',
    },
    {
      method: 'PUT',
      path: '/verifications/{Id}/verify',
      operation: 'verifyVerification',
      invalidates: decided,
      summary: 'Verify',
    },
    {
      method: 'PUT',
      path: '/verifications/{Id}/reject',
      operation: 'rejectVerification',
      invalidates: decided,
      summary: 'Reject',
    },
  ],
};
