// A webhook subscription: one event, one URL, its (encrypted) signing secrets and its delivery health.
import { defineEntity, type EventArgs, p } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { carShareIdProperty } from '../db/car-share-condition.js';
import { ANNOUNCED_PROPERTIES, announceSubscriptionChanged } from './subscription.announce.js';

export const disabledReasons = ['Manual', 'Failing', 'Gone'] as const;
export type DisabledReason = (typeof disabledReasons)[number];

export const WebhookSubscriptionSchema = defineEntity({
  name: 'WebhookSubscription',
  tableName: 'webhook_subscription',
  properties: {
    id: p.uuid().primary(),
    carShareId: carShareIdProperty(),
    name: p.string(),
    event: p.string(),
    url: p.string(),
    contentType: p.string(),
    /** AES-GCM ciphertext of the current secret; null once deleted. */
    secret: p.text().nullable(),
    /** The secret before the last rotation: it keeps signing alongside until it expires. */
    previousSecret: p.text().nullable(),
    previousSecretExpiresDateUtc: p.datetime().nullable(),
    isActive: p.boolean(),
    disabledReason: p.string().$type<DisabledReason>().nullable(),
    consecutiveFailures: p.integer(),
    /** Start of an unbroken run of failed attempts; cleared by any success. */
    failingSinceDateUtc: p.datetime().nullable(),
    lastSuccessDateUtc: p.datetime().nullable(),
    lastFailureDateUtc: p.datetime().nullable(),
    /** Created by ops or a client application: receives every event, not only those about its creator. */
    receivesAll: p.boolean(),
    createdById: p.string(),
    createdDateUtc: p.datetime(),
    lastModifiedDateUtc: p.datetime(),
    deletedDateUtc: p.datetime().nullable(),
  },
  // A flush that changes what the delivery workers cache, or deletes the row, announces it in its own transaction
  // (subscription.announce.ts), whichever command changed it.
  hooks: {
    afterUpdate: [
      ({ em, entity, changeSet }: EventArgs<{ id: string }>) =>
        changeSet && ANNOUNCED_PROPERTIES.some((k) => k in changeSet.payload)
          ? announceSubscriptionChanged(em as EntityManager, entity.id)
          : undefined,
    ],
    afterDelete: [
      ({ em, entity }: EventArgs<{ id: string }>) =>
        announceSubscriptionChanged(em as EntityManager, entity.id),
    ],
  },
});
export class WebhookSubscription extends WebhookSubscriptionSchema.class {}
WebhookSubscriptionSchema.setClass(WebhookSubscription);
