// The REST cache and the service's own changes: what background work changes (booking timers, verification expiry,
// delivery outcomes) goes stale as the mutations a client would run to make the same change.
import type { GraphQLSchema } from 'graphql';
import type { CarShareRegistry } from './carshares/registry.js';
import type { BackgroundChange, Changed } from './shared/changes.js';

/**
 * Each change the service makes by itself, as the mutations a client would run to make the same change: their REST
 * rows name what goes stale. Booking timers expire and complete bookings (the car's bookability with them);
 * verification expiry changes what accounts, cars and bookings show as verified; delivery outcomes change deliveries
 * and their subscription's health (a failing streak disables it).
 */
const changedLike = {
  bookings: ['completeBooking'],
  verifications: ['rejectVerification'],
  webhooks: ['redeliverWebhookDelivery', 'updateWebhookSubscription'],
} as const satisfies Record<BackgroundChange, readonly string[]>;

/**
 * Background changes as mutations, checked against the schema at start: a renamed mutation fails loudly here. Stale
 * in the car share the change was made in; a change that names none makes every car share's answers stale.
 */
export function backgroundInvalidation(
  schema: GraphQLSchema,
  stale: (mutations: readonly string[], carShareId: string) => Promise<void>,
  carShares: CarShareRegistry,
): Changed {
  const mutations = schema.getMutationType()?.getFields() ?? {};
  for (const name of Object.values(changedLike).flat())
    if (!Object.hasOwn(mutations, name)) throw new Error(`background changes: no mutation ${name}`);
  return async (what, carShareId) => {
    const ids = carShareId ? [carShareId] : carShares.all().map((c) => c.id);
    await Promise.all(ids.map((id) => stale(changedLike[what], id)));
  };
}
