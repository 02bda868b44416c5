// One delivery per (event, subscription), and the log of its HTTP attempts.
import { defineEntity, p } from '@mikro-orm/core';
import { carShareIdProperty } from '../db/car-share-condition.js';

export const deliveryStatuses = ['Pending', 'Succeeded', 'Failed', 'Skipped', 'Cancelled'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

export const attemptTriggers = ['Scheduled', 'Manual'] as const;
export type AttemptTrigger = (typeof attemptTriggers)[number];

export const WebhookDeliverySchema = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_delivery',
  properties: {
    /** 32 lowercase hex: the X-Webhook-Delivery and webhook-id value, the same on every attempt. */
    id: p.string().primary(),
    carShareId: carShareIdProperty(),
    subscriptionId: p.uuid(),
    eventId: p.uuid(),
    event: p.string(),
    /** The exact bytes sent and signed, serialized once at fan-out. */
    body: p.text(),
    status: p.string().$type<DeliveryStatus>(),
    /** Scheduled attempts made so far: the position in the retry schedule. */
    attemptCount: p.integer(),
    nextAttemptDateUtc: p.datetime().nullable(),
    /** The next attempt is a redelivery asked for by a caller. */
    manual: p.boolean(),
    lockedBy: p.string().nullable(),
    lockedUntilUtc: p.datetime().nullable(),
    occurredDateUtc: p.datetime(),
    createdDateUtc: p.datetime(),
    lastModifiedDateUtc: p.datetime(),
  },
});
export class WebhookDelivery extends WebhookDeliverySchema.class {}
WebhookDeliverySchema.setClass(WebhookDelivery);

export const WebhookAttemptSchema = defineEntity({
  name: 'WebhookAttempt',
  tableName: 'webhook_attempt',
  properties: {
    id: p.uuid().primary(),
    carShareId: carShareIdProperty(),
    deliveryId: p.string(),
    number: p.integer(),
    trigger: p.string().$type<AttemptTrigger>(),
    attemptedDateUtc: p.datetime(),
    statusCode: p.integer().nullable(),
    error: p.text().nullable(),
    durationMs: p.integer(),
    requestId: p.string(),
    url: p.string(),
    responseBody: p.text().nullable(),
  },
});
export class WebhookAttempt extends WebhookAttemptSchema.class {}
WebhookAttemptSchema.setClass(WebhookAttempt);
