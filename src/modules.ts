// The subdomains the service is composed of, in dependency order.
import { createAccountsModule } from './accounts/accounts.resolvers.js';
import { auditModule } from './audit-search/audit.resolvers.js';
import { bookingPolicy } from './bookings/booking.policy.js';
import { createBookingsModule } from './bookings/bookings.resolvers.js';
import { recordingLockDevice } from './bookings/car-lock.port.js';
import { bookingOccupancy } from './bookings/car-occupancy.adapter.js';
import { bookingCounterparties } from './bookings/counterparties.adapter.js';
import { createCarsModule } from './cars/cars.resolvers.js';
import { clientappsModule } from './clientapps/clientapps.resolvers.js';
import { OutboxEventSchema } from './events/outbox.entity.js';
import { feedbackModule } from './feedback/feedback.resolvers.js';
import type { DomainModule } from './graphql/module.js';
import { createPlatformModule, type PlatformSettings } from './platform/platform.resolvers.js';
import { ratingsModule } from './ratings/ratings.resolvers.js';
import { reportsModule } from './reports/reports.resolvers.js';
import { verificationsModule } from './verifications/verifications.resolvers.js';
import { defaultWebhookSettings, type WebhookSettings } from './webhooks/webhook.context.js';
import { createWebhooksModule } from './webhooks/webhooks.resolvers.js';

const core: DomainModule = {
  name: 'core',
  entities: [OutboxEventSchema],
  resolvers: { Query: { _ping: () => true }, Mutation: { _ping: () => true } },
  audit: { _ping: { notAdministrative: 'changes nothing' } },
};

/** What configuration the modules are built with (CONTRACT §12). */
export interface ModuleSettings {
  bookingLeadMinutes: number;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS, WEBHOOK_TIMEOUT_MS and the event bus; secure defaults when absent. */
  webhooks?: WebhookSettings;
  /** The platform API's database (CONTRACT §22); its fields fail without it. */
  platform?: PlatformSettings;
}

/** The modules, built for the given configuration; `modules` below is them with the defaults. */
export function composeModules(settings: ModuleSettings = { bookingLeadMinutes: 15 }): DomainModule[] {
  return [
    core,
    ratingsModule,
    verificationsModule,
    // Accounts ask bookings who is whose counterparty (the phone number rule) through this port.
    createAccountsModule(bookingCounterparties),
    // Cars ask bookings whether a car is booked through this port (cars never import bookings).
    createCarsModule(bookingOccupancy),
    feedbackModule,
    createBookingsModule({
      policy: bookingPolicy(settings.bookingLeadMinutes),
      lockDevice: recordingLockDevice,
    }),
    clientappsModule,
    createWebhooksModule(settings.webhooks ?? defaultWebhookSettings),
    reportsModule,
    auditModule,
    createPlatformModule(settings.platform),
  ];
}

export const modules: DomainModule[] = composeModules();

export const entities = modules.flatMap((m) => m.entities);
