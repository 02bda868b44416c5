// Ratings of users and cars (CONTRACT §7), read-only.
import type { RouteModule } from '../route.types.js';

export const ratingRoutes: RouteModule = {
  routes: [
    {
      method: 'GET',
      path: '/ratings/{SubjectType}/{SubjectId}',
      operation: 'rating',
      ttl: 60,
      summary: 'Get the rating of a user account or a car',
    },
  ],
};
