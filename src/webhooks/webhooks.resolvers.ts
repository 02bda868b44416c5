// GraphQL for webhooks: thin; reads through queries and loaders, changes through commands.
import type { IResolvers } from '@graphql-tools/utils';
import type { AuditDeclarations } from '../audit/audit.declaration.js';
import type { BusEvent } from '../events/bus.js';
import type { Context } from '../graphql/context.js';
import type { DomainModule } from '../graphql/module.js';
import { redeliverWebhookDelivery, testWebhookSubscription } from './delivery.commands.js';
import { WebhookAttemptSchema, WebhookDeliverySchema } from './delivery.entity.js';
import { subscribeEvents } from './event.stream.js';
import {
  createWebhookSubscriptions,
  deleteWebhookSubscription,
  rotateWebhookSubscriptionSecret,
  updateWebhookSubscription,
} from './subscription.commands.js';
import { WebhookSubscriptionSchema } from './subscription.entity.js';
import type { CreateSubscriptionsInput, UpdateSubscriptionInput } from './subscription.input.js';
import type { DeliveryView, WebhookSettings } from './webhook.context.js';
import { attemptsByDelivery } from './webhook.loaders.js';
import {
  type DeliveryFilter,
  getDelivery,
  getSubscription,
  type SubscriptionFilter,
  searchDeliveries,
  searchSubscriptions,
} from './webhook.queries.js';

type Id = { id: string };

const resolvers = (settings: WebhookSettings): IResolvers<unknown, Context> => ({
  Query: {
    webhookSubscriptions: (_: unknown, args: SubscriptionFilter, ctx: Context) =>
      searchSubscriptions(ctx, args),
    webhookSubscription: (_: unknown, { id }: Id, ctx: Context) => getSubscription(ctx, id),
    webhookDeliveries: (_: unknown, args: DeliveryFilter, ctx: Context) => searchDeliveries(ctx, args),
    webhookDelivery: (_: unknown, { id }: Id, ctx: Context) => getDelivery(ctx, id),
  },
  Mutation: {
    createWebhookSubscriptions: (_: unknown, { input }: { input: CreateSubscriptionsInput }, ctx: Context) =>
      createWebhookSubscriptions(ctx, settings, input),
    updateWebhookSubscription: (
      _: unknown,
      { id, input }: Id & { input: UpdateSubscriptionInput },
      ctx: Context,
    ) => updateWebhookSubscription(ctx, settings, id, input),
    deleteWebhookSubscription: (_: unknown, { id }: Id, ctx: Context) =>
      deleteWebhookSubscription(ctx, settings, id),
    rotateWebhookSubscriptionSecret: (
      _: unknown,
      { id, input }: Id & { input?: { secret?: string | null } | null },
      ctx: Context,
    ) => rotateWebhookSubscriptionSecret(ctx, id, input),
    testWebhookSubscription: (_: unknown, { id }: Id, ctx: Context) => testWebhookSubscription(ctx, id),
    redeliverWebhookDelivery: (_: unknown, { id }: Id, ctx: Context) => redeliverWebhookDelivery(ctx, id),
  },
  Subscription: {
    events: {
      subscribe: (_: unknown, { names }: { names?: string[] | null }, ctx: Context) =>
        subscribeEvents(ctx.actor, settings.bus, names, ctx.carShare.id),
      resolve: (e: BusEvent) => ({ name: e.name, occurredDateUtc: e.occurredDateUtc, payload: e.payload }),
    },
  },
  WebhookDelivery: {
    attempts: (d: DeliveryView, _: unknown, ctx: Context) => attemptsByDelivery(ctx).load(d.id),
  },
});

export const createWebhooksModule = (settings: WebhookSettings): DomainModule => ({
  name: 'webhooks',
  entities: [WebhookSubscriptionSchema, WebhookDeliverySchema, WebhookAttemptSchema],
  resolvers: resolvers(settings),
  audit,
});

/** An operator changing subscriptions (CONTRACT §18); an app or a user managing its own is no administrative change. */
const subscription = {
  subjectType: 'WebhookSubscription',
  subjectId: ({ id }: Id) => id,
  by: ['ops'],
} as const;
const sends = { notAdministrative: 'sends a delivery; changes no subscription' };
const audit: AuditDeclarations = {
  createWebhookSubscriptions: {
    subjectType: 'WebhookSubscription',
    subjectId: (_, created: { id: string }[]) => created.map((s) => s.id),
    by: ['ops'],
  },
  updateWebhookSubscription: subscription,
  deleteWebhookSubscription: subscription,
  rotateWebhookSubscriptionSecret: subscription,
  testWebhookSubscription: sends,
  redeliverWebhookDelivery: sends,
};
