// The platform API (CONTRACT §22): car shares and the platform's audit trail, served under `/platform/api` by a
// facade of its own on the default car share's host (the service mounts it; other hosts never reach it).
import type { RouteModule } from '../route.types.js';

/** Where the platform's facade is mounted. */
export const PLATFORM_PREFIX = '/platform/api';

// A platform GET is computed from other car shares' rows (their usage) and changed by the command line, which
// tells no cache: its answers are kept a moment only.
const ttl = 1;

export const platformRoutes: RouteModule = {
  names: [
    { type: 'CreatedCarShare', rest: 'CarShare' },
    { type: 'CarShareOperator', rest: 'UserAccount' },
    { type: 'PlatformAuditEntry', rest: 'AuditEntry' },
  ],
  routes: [
    { method: 'GET', path: '/carshares', operation: 'carShares', ttl, summary: 'Search car shares' },
    {
      method: 'POST',
      path: '/carshares',
      operation: 'createCarShare',
      location: '/carshares',
      lift: ['initialOperator'],
      invalidates: ['CarShare', 'PlatformAuditEntry'],
      summary: 'Create a car share and its first operator',
    },
    { method: 'GET', path: '/carshares/{Id}', operation: 'carShare', ttl, summary: 'Get a car share' },
    {
      method: 'PATCH',
      path: '/carshares/{Id}',
      operation: 'updateCarShare',
      invalidates: ['PlatformAuditEntry'],
      summary: "Change a car share's name or limits",
    },
    {
      method: 'PUT',
      path: '/carshares/{Id}/suspend',
      operation: 'suspendCarShare',
      invalidates: ['PlatformAuditEntry'],
      summary: 'Suspend a car share',
    },
    {
      method: 'PUT',
      path: '/carshares/{Id}/reactivate',
      operation: 'reactivateCarShare',
      invalidates: ['PlatformAuditEntry'],
      summary: 'Reactivate a car share',
    },
    {
      method: 'DELETE',
      path: '/carshares/{Id}',
      operation: 'deleteCarShare',
      invalidates: ['CarShare', 'PlatformAuditEntry'],
      summary: 'Delete a suspended car share',
    },
    {
      method: 'POST',
      path: '/carshares/{Id}/operators',
      operation: 'addCarShareOperator',
      lift: ['password'],
      invalidates: ['CarShare', 'PlatformAuditEntry'],
      summary: 'Add an operator account to a car share',
    },
    {
      method: 'GET',
      path: '/audit',
      operation: 'platformAudit',
      ttl,
      summary: "Search the platform's audit trail",
    },
  ],
};
