// The operators dashboard at /dashboard: server-rendered pages, a GraphQL client of this service signed in
// through the authorization server of the car share the request addresses, as that car share's own first-party
// client (CONTRACT §12, §21): only its operators sign in, and its links and redirects begin with its BaseUrl.
import type Koa from 'koa';
import { serveAuditPages } from './audit.routes.js';
import { serveBookingPages } from './bookings.routes.js';
import { serveCarPages } from './cars.routes.js';
import { serveClientAppPages } from './clientapps.routes.js';
import { createFrameServer, type DashboardDeps } from './frame-server.js';
import { DASHBOARD } from './layout.js';
import { serveSummaryPages } from './summary.routes.js';
import { serveUserPages } from './users.routes.js';
import { serveVerificationPages } from './verifications.routes.js';
import { serveWebhookPages } from './webhooks.routes.js';

export type { DashboardDeps };

export const createDashboard = (deps: DashboardDeps): Promise<Koa.Middleware> =>
  createFrameServer(deps, {
    frame: DASHBOARD,
    sessionPurpose: 'dashboard-session',
    client: (oauth) => oauth.dashboard,
    // Every car share has its dashboard.
    servedAt: () => true,
    routes(router, kit) {
      serveSummaryPages(router, kit);
      serveClientAppPages(router, kit);
      serveWebhookPages(router, kit);
      serveVerificationPages(router, kit);
      serveUserPages(router, kit);
      serveCarPages(router, kit);
      serveBookingPages(router, kit);
      serveAuditPages(router, kit);
    },
  });
