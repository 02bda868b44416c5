// The transactional outbox: an event row committed with the change that raised it.
import { defineEntity, type EventArgs, p } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { carShareIdProperty } from '../db/car-share-condition.js';
import { announceOutboxEvents } from './outbox.announce.js';

export const OutboxEventSchema = defineEntity({
  name: 'OutboxEvent',
  tableName: 'outbox_event',
  properties: {
    id: p.uuid().primary(),
    carShareId: carShareIdProperty(),
    name: p.string(),
    payload: p.json<Record<string, unknown>>(),
    /** User ids the event is about (subject, owner, borrower): who may see it besides ops and apps. */
    audienceUserIds: p.json<string[]>(),
    occurredDateUtc: p.datetime(),
    publishedDateUtc: p.datetime().nullable(),
    /** The Request-Id of the request that raised it (null for timers): joins delivery logs to the request. */
    requestId: p.string().length(128).nullable(),
  },
  // The relays are woken in the flush's transaction; a command writing its event in SQL of its own announces it.
  hooks: {
    afterCreate: [({ em }: EventArgs<unknown>) => announceOutboxEvents(em as EntityManager)],
  },
});
export class OutboxEvent extends OutboxEventSchema.class {}
OutboxEventSchema.setClass(OutboxEvent);
