// Reading subscriptions and deliveries: searches limited to what the caller may see, and one by id.
import { searchRows, whereEquals } from '../db/search.js';
import type { Context } from '../graphql/context.js';
import { notFound } from '../shared/errors.js';
import { type Page, type PageArgs, pageRequest } from '../shared/pagination.js';
import { loadVisibleDelivery } from './delivery.commands.js';
import { type DeliveryStatus, WebhookDelivery } from './delivery.entity.js';
import { WebhookSubscription } from './subscription.entity.js';
import {
  type DeliveryView,
  deliveryView,
  type SubscriptionView,
  subscriptionView,
} from './webhook.context.js';
import { subscriptionById } from './webhook.loaders.js';
import { canManage, seesAllSubscriptions } from './webhook.rules.js';

const subscriptionColumns = {
  createdDateUtc: 'created_date_utc',
  lastModifiedDateUtc: 'last_modified_date_utc',
  name: 'name',
  event: 'event',
  isActive: 'is_active',
} as const;

const deliveryColumns = {
  createdDateUtc: 'created_date_utc',
  lastModifiedDateUtc: 'last_modified_date_utc',
  nextAttemptDateUtc: 'next_attempt_date_utc',
  status: 'status',
  event: 'event',
} as const;

export interface SubscriptionFilter extends PageArgs {
  event?: string | null;
  isActive?: boolean | null;
}

export async function searchSubscriptions(
  ctx: Context,
  args: SubscriptionFilter,
): Promise<Page<SubscriptionView>> {
  const page = pageRequest(args, {
    fields: Object.keys(subscriptionColumns),
    defaultSort: '-createdDateUtc',
  });
  // searchRows names the table's car share (CONTRACT §25); row-level security holds it to the scope anyway.
  const where = ['deleted_date_utc is null'];
  const params: unknown[] = [];
  if (!seesAllSubscriptions(ctx.actor)) {
    where.push('created_by_id = ?');
    params.push(ctx.actor.id);
  }
  if (args.event != null) {
    where.push('event = ?');
    params.push(args.event.trim().toLowerCase());
  }
  if (args.isActive != null) {
    where.push('is_active = ?');
    params.push(args.isActive);
  }
  const { rows, total } = await searchRows<Record<string, unknown>>(
    ctx.em,
    { table: 'webhook_subscription', where, params, columns: subscriptionColumns },
    page,
  );
  return { ...page, total, nodes: rows.map((r) => subscriptionView(ctx.em.map(WebhookSubscription, r))) };
}

export async function getSubscription(ctx: Context, id: string): Promise<SubscriptionView> {
  const s = await subscriptionById(ctx).load(id);
  if (!s || !canManage(ctx.actor, s)) throw notFound('WebhookSubscription');
  return subscriptionView(s);
}

export interface DeliveryFilter extends PageArgs {
  subscriptionId?: string | null;
  status?: DeliveryStatus | null;
  event?: string | null;
}

export async function searchDeliveries(ctx: Context, args: DeliveryFilter): Promise<Page<DeliveryView>> {
  const page = pageRequest(args, { fields: Object.keys(deliveryColumns), defaultSort: '-createdDateUtc' });
  if (args.subscriptionId != null) await getSubscription(ctx, args.subscriptionId);
  const visible = seesAllSubscriptions(ctx.actor) ? '' : ' and created_by_id = ?';
  // searchRows names the table's car share; the subquery names its own (CONTRACT §25).
  const where = [
    `subscription_id in (select id from webhook_subscription
      where car_share_id = ? and deleted_date_utc is null${visible})`,
  ];
  const params: unknown[] = [ctx.carShare.id];
  if (!seesAllSubscriptions(ctx.actor)) params.push(ctx.actor.id);
  whereEquals(where, params, args, { subscriptionId: 'subscription_id', status: 'status', event: 'event' });
  const { rows, total } = await searchRows<Record<string, unknown>>(
    ctx.em,
    { table: 'webhook_delivery', where, params, columns: deliveryColumns },
    page,
  );
  return { ...page, total, nodes: rows.map((r) => deliveryView(ctx.em.map(WebhookDelivery, r))) };
}

export async function getDelivery(ctx: Context, id: string): Promise<DeliveryView> {
  return deliveryView(await loadVisibleDelivery(ctx, id));
}
