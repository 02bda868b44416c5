// Client applications, administered by ops (CONTRACT §7).
import type { RouteModule } from '../route.types.js';

export const clientAppRoutes: RouteModule = {
  routes: [
    {
      method: 'GET',
      path: '/clientapplications',
      operation: 'clientApplications',
      summary: 'Search client applications',
    },
    {
      method: 'POST',
      path: '/clientapplications',
      operation: 'createClientApplication',
      summary: 'Register a client application',
    },
    {
      method: 'GET',
      path: '/clientapplications/{Id}',
      operation: 'clientApplication',
      summary: 'Get a client application',
    },
    {
      method: 'PATCH',
      path: '/clientapplications/{Id}',
      operation: 'updateClientApplication',
      summary: 'Update a client application',
    },
    {
      method: 'DELETE',
      path: '/clientapplications/{Id}',
      operation: 'deleteClientApplication',
      invalidates: ['ClientApplication'],
      summary: 'Delete a client application and revoke its tokens',
    },
    {
      method: 'PUT',
      path: '/clientapplications/{Id}/rotate-secret',
      operation: 'rotateClientApplicationSecret',
      summary: "Rotate a client application's secret",
    },
    {
      method: 'PUT',
      path: '/clientapplications/{Id}/suspend',
      operation: 'suspendClientApplication',
      summary: 'Suspend a client application',
    },
    {
      method: 'PUT',
      path: '/clientapplications/{Id}/reactivate',
      operation: 'reactivateClientApplication',
      summary: 'Reactivate a client application',
    },
  ],
};
