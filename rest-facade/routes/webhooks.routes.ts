// Webhook subscriptions and deliveries (CONTRACT §8). Deliveries change in the background as the worker
// sends them, so their cached GETs live only a couple of seconds.
import type { RouteModule } from '../route.types.js';

/** A delivery's id is the 32-hex `X-Webhook-Delivery` value (CONTRACT §2), not a UUID. */
const deliveryId = { Id: { pattern: /^[0-9a-f]{32}$/, description: '32 lowercase hexadecimal digits' } };

export const webhookRoutes: RouteModule = {
  routes: [
    {
      method: 'POST',
      path: '/webhooks/subscriptions',
      operation: 'createWebhookSubscriptions',
      summary: 'Subscribe to events (one subscription per event)',
    },
    {
      method: 'GET',
      path: '/webhooks/subscriptions',
      operation: 'webhookSubscriptions',
      summary: "Search the caller's webhook subscriptions",
    },
    {
      method: 'GET',
      path: '/webhooks/subscriptions/{Id}',
      operation: 'webhookSubscription',
      summary: 'Get a webhook subscription',
    },
    {
      method: 'PATCH',
      path: '/webhooks/subscriptions/{Id}',
      operation: 'updateWebhookSubscription',
      summary: 'Update a webhook subscription',
    },
    {
      method: 'DELETE',
      path: '/webhooks/subscriptions/{Id}',
      operation: 'deleteWebhookSubscription',
      invalidates: ['WebhookSubscription', 'WebhookDelivery'],
      summary: 'Delete a webhook subscription',
    },
    {
      method: 'PUT',
      path: '/webhooks/subscriptions/{Id}/rotate-secret',
      operation: 'rotateWebhookSubscriptionSecret',
      summary: "Rotate a subscription's signing secret",
    },
    {
      method: 'PUT',
      path: '/webhooks/subscriptions/{Id}/test',
      operation: 'testWebhookSubscription',
      summary: 'Send a webhook_test event',
    },
    {
      method: 'GET',
      path: '/webhooks/subscriptions/{Id}/deliveries',
      operation: 'webhookDeliveries',
      params: { Id: 'subscriptionId' },
      ttl: 2,
      summary: "Search a subscription's deliveries",
    },
    {
      method: 'GET',
      path: '/webhooks/deliveries/{Id}',
      operation: 'webhookDelivery',
      formats: deliveryId,
      ttl: 2,
      summary: 'Get a webhook delivery with its attempts',
    },
    {
      method: 'PUT',
      path: '/webhooks/deliveries/{Id}/redeliver',
      operation: 'redeliverWebhookDelivery',
      formats: deliveryId,
      summary: 'Attempt a delivery once more',
    },
  ],
};
