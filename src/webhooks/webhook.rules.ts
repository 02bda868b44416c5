// Who sees which subscriptions and which events (CONTRACT §8): ops and client applications every event, a
// user only events about themselves, their cars and their bookings; subscriptions are their creator's.
import { type Actor, actorClass } from '../access/actor.js';

/** Operators see and manage every subscription; everyone else their own. */
export const seesAllSubscriptions = (a: Actor): boolean => actorClass(a) === 'ops';

export function canManage(
  a: Actor,
  s: { createdById: string; deletedDateUtc?: Date | null | undefined },
): boolean {
  if (s.deletedDateUtc) return false;
  return seesAllSubscriptions(a) || (a.id !== null && a.kind !== 'anonymous' && s.createdById === a.id);
}

/** A subscription made by ops or a client application receives every event of the car share. */
export function receivesAllEvents(a: Actor): boolean {
  const cls = actorClass(a);
  return cls === 'ops' || cls === 'clientapplication';
}

/** The same rule for live listeners (graphql-ws): events about the caller, or all for ops and apps. */
export function canSeeEvent(a: Actor, e: { audienceUserIds: readonly string[] }): boolean {
  if (receivesAllEvents(a)) return true;
  return a.kind === 'user' && a.id !== null && e.audienceUserIds.includes(a.id);
}
