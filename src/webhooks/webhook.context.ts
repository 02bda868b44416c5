// What webhook commands and queries work with: the request context, the module's settings (configuration
// and the event bus), and the views GraphQL reads (the secret appears only on a view made by create or rotate).
import type { EventBus } from '../events/bus.js';
import type { Context } from '../graphql/context.js';
import type { WebhookDelivery } from './delivery.entity.js';
import type { WebhookSubscription } from './subscription.entity.js';
import type { Lookup, TargetPolicy } from './target-guard.js';

export type WebhookContext = Pick<Context, 'em' | 'carShare' | 'actor' | 'clock' | 'afterCommit'>;

/** What the webhooks module is built with (CONTRACT §12). */
export interface WebhookSettings {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS */
  allowPrivateTargets: boolean;
  /** WEBHOOK_TIMEOUT_MS */
  timeoutMs: number;
  /** Committed events for the GraphQL subscription; without one, `events` cannot be subscribed to. */
  bus?: EventBus | undefined;
  /** DNS lookup for the subscribe-time guard (tests inject names that resolve to loopback). */
  lookup?: Lookup | undefined;
}

export const defaultWebhookSettings: WebhookSettings = Object.freeze({
  allowPrivateTargets: false,
  timeoutMs: 15_000,
});

export const policyOf = (s: WebhookSettings): TargetPolicy => ({
  allowPrivate: s.allowPrivateTargets,
  lookup: s.lookup,
});

/** How long a worker's claim lasts (the runtime's default): an attempt in flight ends within it. */
export const leaseMsFor = (timeoutMs: number): number => 2 * timeoutMs + 5000;

export interface SubscriptionView {
  id: string;
  name: string;
  event: string;
  config: { url: string; contentType: string };
  isActive: boolean;
  disabledReason: string | null;
  consecutiveFailures: number;
  lastSuccessDateUtc: Date | null;
  lastFailureDateUtc: Date | null;
  createdById: string;
  createdDateUtc: Date;
  lastModifiedDateUtc: Date;
  secret: string | null;
}

export function subscriptionView(s: WebhookSubscription, secret?: string): SubscriptionView {
  return {
    id: s.id,
    name: s.name,
    event: s.event,
    config: { url: s.url, contentType: s.contentType },
    isActive: s.isActive,
    disabledReason: s.disabledReason ?? null,
    consecutiveFailures: s.consecutiveFailures,
    lastSuccessDateUtc: s.lastSuccessDateUtc ?? null,
    lastFailureDateUtc: s.lastFailureDateUtc ?? null,
    createdById: s.createdById,
    createdDateUtc: s.createdDateUtc,
    lastModifiedDateUtc: s.lastModifiedDateUtc,
    secret: secret ?? null,
  };
}

export interface DeliveryView {
  id: string;
  subscriptionId: string;
  event: string;
  status: string;
  nextAttemptDateUtc: Date | null;
  /** The JSON body sent. */
  payload: unknown;
  createdDateUtc: Date;
  lastModifiedDateUtc: Date;
}

export function deliveryView(d: WebhookDelivery): DeliveryView {
  return {
    id: d.id,
    subscriptionId: d.subscriptionId,
    event: d.event,
    status: d.status,
    nextAttemptDateUtc: d.nextAttemptDateUtc ?? null,
    payload: JSON.parse(d.body),
    createdDateUtc: d.createdDateUtc,
    lastModifiedDateUtc: d.lastModifiedDateUtc,
  };
}
