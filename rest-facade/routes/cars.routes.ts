// Cars and their unavailabilities (CONTRACT §7). Car searches depend on unavailabilities, so those
// mutations make cached cars stale too.
import type { RouteModule } from '../route.types.js';
import { near } from './cars.near.js';

const unavailability = { Id: 'carId', UnavailabilityId: 'id' } as const;

export const carRoutes: RouteModule = {
  routes: [
    { method: 'GET', path: '/cars', operation: 'cars', composed: { near }, summary: 'Search cars' },
    {
      method: 'POST',
      path: '/cars',
      operation: 'createCar',
      invalidates: ['UserAccount'],
      summary: 'Register a car',
    },
    { method: 'GET', path: '/cars/{Id}', operation: 'car', ttl: 30, summary: 'Get a car' },
    { method: 'PATCH', path: '/cars/{Id}', operation: 'updateCar', summary: 'Update a car' },
    {
      method: 'DELETE',
      path: '/cars/{Id}',
      operation: 'deleteCar',
      invalidates: ['Car', 'Unavailability', 'Verification', 'UserAccount'],
      summary: 'Delete a car',
    },
    { method: 'PUT', path: '/cars/{Id}/list', operation: 'listCar', summary: 'List a car' },
    { method: 'PUT', path: '/cars/{Id}/unlist', operation: 'unlistCar', summary: 'Unlist a car' },
    {
      method: 'GET',
      path: '/cars/{Id}/unavailabilities',
      operation: 'unavailabilities',
      params: { Id: 'carId' },
      summary: "Search a car's unavailabilities",
    },
    {
      method: 'POST',
      path: '/cars/{Id}/unavailabilities',
      operation: 'createUnavailability',
      params: { Id: 'carId' },
      location: '/cars/{CarId}/unavailabilities',
      invalidates: ['Car'],
      summary: 'Declare an unavailability',
    },
    {
      method: 'DELETE',
      path: '/cars/{Id}/unavailabilities/{UnavailabilityId}',
      operation: 'deleteUnavailability',
      params: unavailability,
      invalidates: ['Unavailability', 'Car'],
      summary: 'Delete an unavailability',
    },
  ],
};
