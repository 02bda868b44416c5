// The business verbs on deliveries: send a `webhook_test` through the normal pipeline, and redeliver (one
// more attempt with the same delivery id and a fresh signature).
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidState, notFound, validationError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { WebhookDelivery } from './delivery.entity.js';
import { DELIVERY_CHANNEL, serializeBody } from './fanout.js';
import { loadManaged } from './subscription.commands.js';
import { WebhookSubscription } from './subscription.entity.js';
import { type DeliveryView, deliveryView, type WebhookContext } from './webhook.context.js';
import { canManage } from './webhook.rules.js';

/** Not a domain event: a ping to one subscription, so it goes straight to a delivery (CONTRACT §8). */
export const TEST_EVENT = 'webhook_test';

const DELIVERY_ID = /^[0-9a-f]{32}$/;
export const newDeliveryId = (): string => randomBytes(16).toString('hex');

/** Wakes every instance's workers once the transaction commits (NOTIFY is transactional). */
async function notifyWorkers(em: EntityManager): Promise<void> {
  await em
    .getConnection()
    .execute(`select pg_notify('${DELIVERY_CHANNEL}', '')`, [], 'all', em.getTransactionContext());
}

export async function testWebhookSubscription(ctx: WebhookContext, id: string): Promise<DeliveryView> {
  const s = await loadManaged(ctx, id);
  const now = ctx.clock.now();
  const body = serializeBody({
    Name: TEST_EVENT,
    OccurredDateUtc: now.toISOString(),
    CarShareId: ctx.carShare.id,
    SubscriptionId: s.id,
  });
  const d = ctx.em.create(WebhookDelivery, {
    id: newDeliveryId(),
    subscriptionId: s.id,
    eventId: newId(),
    event: TEST_EVENT,
    body,
    status: s.isActive ? 'Pending' : 'Skipped',
    attemptCount: 0,
    nextAttemptDateUtc: s.isActive ? now : null,
    manual: false,
    lockedBy: null,
    lockedUntilUtc: null,
    occurredDateUtc: now,
    createdDateUtc: now,
    lastModifiedDateUtc: now,
  });
  ctx.em.persist(d);
  await notifyWorkers(ctx.em);
  return deliveryView(d);
}

/** A delivery the caller may see: one of a subscription they manage that still exists. */
export async function loadVisibleDelivery(ctx: WebhookContext, rawId: string): Promise<WebhookDelivery> {
  const id = rawId.trim().toLowerCase();
  if (!DELIVERY_ID.test(id))
    throw validationError([
      {
        code: 'InvalidFormat',
        field: 'id',
        message: 'Id must be 32 hexadecimal digits (X-Webhook-Delivery)',
      },
    ]);
  const d = await ctx.em.findOne(WebhookDelivery, { id });
  const s = d ? await ctx.em.findOne(WebhookSubscription, { id: d.subscriptionId }) : null;
  if (!d || !s || !canManage(ctx.actor, s)) throw notFound('WebhookDelivery');
  return d;
}

export async function redeliverWebhookDelivery(ctx: WebhookContext, id: string): Promise<DeliveryView> {
  const d = await loadVisibleDelivery(ctx, id);
  if (d.status === 'Pending')
    throw invalidState(
      d.status,
      'This delivery is still scheduled; it will be attempted without a redelivery',
    );
  if (d.status === 'Cancelled') throw invalidState(d.status, 'A cancelled delivery cannot be redelivered');
  const now = ctx.clock.now();
  Object.assign(d, { status: 'Pending', manual: true, nextAttemptDateUtc: now, lastModifiedDateUtc: now });
  await notifyWorkers(ctx.em);
  return deliveryView(d);
}
