// The route table: every resource's file. Adding a resource's routes is one file here and one line below.
import type { RouteModule } from '../route.types.js';
import { accountRoutes } from './accounts.routes.js';
import { auditRoutes } from './audit.routes.js';
import { bookingRoutes } from './bookings.routes.js';
import { carRoutes } from './cars.routes.js';
import { clientAppRoutes } from './clientapps.routes.js';
import { feedbackRoutes } from './feedback.routes.js';
import { ratingRoutes } from './ratings.routes.js';
import { reportRoutes } from './reports.routes.js';
import { verificationRoutes } from './verifications.routes.js';
import { webhookRoutes } from './webhooks.routes.js';

export const routeModules: readonly RouteModule[] = [
  accountRoutes,
  verificationRoutes,
  ratingRoutes,
  carRoutes,
  feedbackRoutes,
  bookingRoutes,
  clientAppRoutes,
  webhookRoutes,
  reportRoutes,
  auditRoutes,
];
