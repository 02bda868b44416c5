// User accounts and profiles (CONTRACT §7).
import type { RouteModule } from '../route.types.js';

export const accountRoutes: RouteModule = {
  routes: [
    { method: 'GET', path: '/useraccounts', operation: 'userAccounts', summary: 'Search user accounts' },
    { method: 'POST', path: '/useraccounts', operation: 'createUserAccount', summary: 'Sign up' },
    {
      method: 'GET',
      path: '/useraccounts/{Id}',
      operation: 'userAccount',
      ttl: 30,
      summary: 'Get a user account',
    },
    {
      method: 'PATCH',
      path: '/useraccounts/{Id}',
      operation: 'updateUserAccount',
      invalidates: ['Profile'],
      summary: 'Update a user account',
    },
    {
      method: 'PUT',
      path: '/useraccounts/{Id}/suspend',
      operation: 'suspendUserAccount',
      invalidates: ['Car', 'CarBooking'],
      summary: 'Suspend a user account',
    },
    {
      method: 'PUT',
      path: '/useraccounts/{Id}/reactivate',
      operation: 'reactivateUserAccount',
      invalidates: ['Car', 'CarBooking'],
      summary: 'Reactivate a user account',
    },
    { method: 'GET', path: '/profiles/{Id}', operation: 'profile', ttl: 60, summary: 'Get a profile' },
    {
      method: 'PATCH',
      path: '/profiles/{Id}',
      operation: 'updateProfile',
      invalidates: ['UserAccount', 'Verification'],
      summary: 'Update a profile',
    },
  ],
};
