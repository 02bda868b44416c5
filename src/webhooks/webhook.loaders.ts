// Subscriptions by id and attempts by delivery, batched per request.
import { byKey, defineLoader, groupByKey } from '../graphql/loaders.js';
import { WebhookAttempt } from './delivery.entity.js';
import { WebhookSubscription } from './subscription.entity.js';

export const subscriptionById = defineLoader<string, WebhookSubscription | null>(
  'webhookSubscriptionById',
  async (em, ids) =>
    byKey(ids, await em.find(WebhookSubscription, { id: { $in: [...ids] } }), (s) => s.id, null),
);

export const attemptsByDelivery = defineLoader<string, WebhookAttempt[]>(
  'webhookAttemptsByDelivery',
  async (em, ids) =>
    groupByKey(
      ids,
      await em.find(WebhookAttempt, { deliveryId: { $in: [...ids] } }, { orderBy: { number: 'asc' } }),
      (a) => a.deliveryId,
    ),
);
