// Recording an event: persisted on the command's EntityManager, so it commits or rolls back with the change.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../shared/clock.js';
import { newId } from '../shared/ids.js';
import { buildPayload, type EventFields, type EventName } from './events.js';
import { OutboxEvent } from './outbox.entity.js';

export interface EventContext {
  em: EntityManager;
  clock: Clock;
  /** Present when a request raised the event (the GraphQL context carries it through to the commands). */
  requestId?: string | undefined;
}

/** The values of an event's outbox row, for a command that writes it in its own statement. */
export function outboxValues<E extends EventName>(
  ctx: Omit<EventContext, 'em'>,
  name: E,
  fields: EventFields[E],
  audienceUserIds: readonly (string | null | undefined)[],
) {
  const occurred = ctx.clock.now();
  return {
    id: newId(),
    name,
    payload: buildPayload(name, fields, occurred),
    audienceUserIds: [...new Set(audienceUserIds.filter((u): u is string => typeof u === 'string'))],
    occurredDateUtc: occurred,
    publishedDateUtc: null,
    requestId: ctx.requestId ?? null,
  };
}

export function recordEvent<E extends EventName>(
  ctx: EventContext,
  name: E,
  fields: EventFields[E],
  audienceUserIds: readonly (string | null | undefined)[],
): OutboxEvent {
  const ev = ctx.em.create(OutboxEvent, outboxValues(ctx, name, fields, audienceUserIds));
  ctx.em.persist(ev);
  return ev;
}
