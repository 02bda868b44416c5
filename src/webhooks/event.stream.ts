// The GraphQL subscription `events`: the bus's committed events of the connection's car share (CONTRACT §20),
// narrowed to the names asked for and to what the caller may see (the same rule as webhook subscriptions).
import type { Actor } from '../access/actor.js';
import { authorize } from '../access/permissions.js';
import type { BusEvent, EventBus } from '../events/bus.js';
import { eventNames, isEventName } from '../events/events.js';
import { validationError } from '../shared/errors.js';
import { splitEvents } from './subscription.input.js';
import { canSeeEvent } from './webhook.rules.js';

/** Delegates `return()` at once, so a client that unsubscribes stops listening even while no event comes. */
function filtered(inner: AsyncIterableIterator<BusEvent>, keep: (e: BusEvent) => boolean) {
  const it: AsyncIterableIterator<BusEvent> = {
    async next() {
      for (;;) {
        const r = await inner.next();
        if (r.done || keep(r.value)) return r;
      }
    },
    async return() {
      await inner.return?.();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => it,
  };
  return it;
}

export function subscribeEvents(
  actor: Actor,
  bus: EventBus | undefined,
  names: readonly string[] | null | undefined,
  carShareId: string,
): AsyncIterableIterator<BusEvent> {
  authorize('events', actor);
  const wanted = names ? splitEvents(names) : null;
  const unknown = wanted?.filter((n) => !isEventName(n)) ?? [];
  if (unknown.length > 0)
    throw validationError([
      {
        code: 'InvalidValue',
        field: 'names',
        message: `Names has unknown event names: ${unknown.join(', ')}`,
        meta: { Allowed: eventNames },
      },
    ]);
  if (!bus) throw new Error('no event bus is running in this process');
  return filtered(
    bus.subscribe(carShareId),
    (e) =>
      e.carShareId === carShareId && (wanted === null || wanted.includes(e.name)) && canSeeEvent(actor, e),
  );
}
