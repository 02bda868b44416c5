// Who may see a booking and who may move it where (CONTRACT §6): the transition table and its refusals.
import { type Actor, actorClass, hasScope, isSelf } from '../access/actor.js';
import { DomainError, forbidden, invalidState, notFound } from '../shared/errors.js';
import type { BookingState, CarBooking } from './car-booking.entity.js';

/** How a caller relates to a booking; a caller may be several (an operator who borrows). */
export const parties = ['borrower', 'owner', 'ops'] as const;
export type Party = (typeof parties)[number];

export const bookingActions = [
  'approve',
  'decline',
  'cancel',
  'use',
  'extend',
  'return',
  'complete',
] as const;
export type BookingAction = (typeof bookingActions)[number];

/** For each action: the states it leaves, and who may take it from each. Anything else is refused. */
export const transitions = {
  approve: { Pending: ['owner', 'ops'] },
  decline: { Pending: ['owner', 'ops'] },
  cancel: { Pending: ['borrower'], Approved: ['borrower', 'owner', 'ops'] },
  use: { Approved: ['borrower'] },
  extend: { Approved: ['borrower'], InUse: ['borrower'] },
  return: { InUse: ['borrower', 'owner', 'ops'] },
  complete: { Returned: ['owner', 'ops'] },
} as const satisfies Record<BookingAction, Partial<Record<BookingState, readonly Party[]>>>;

/** Where each action leads; `extend` keeps the state it was taken in. */
export const targetState = {
  approve: 'Approved',
  decline: 'Declined',
  cancel: 'Cancelled',
  use: 'InUse',
  extend: null,
  return: 'Returned',
  complete: 'Completed',
} as const satisfies Record<BookingAction, BookingState | null>;

export function partiesOf(actor: Actor, b: Pick<CarBooking, 'borrowerId' | 'ownerId'>): Party[] {
  const out: Party[] = [];
  if (isSelf(actor, b.borrowerId)) out.push('borrower');
  if (isSelf(actor, b.ownerId)) out.push('owner');
  if (actorClass(actor) === 'ops') out.push('ops');
  return out;
}

/** Network-wide readers: ops, and client applications (or operators without the `ops` scope) with `reports:read`. */
export function seesAllBookings(actor: Actor): boolean {
  const cls = actorClass(actor);
  if (cls === 'ops') return true;
  if (!hasScope(actor, 'reports:read')) return false;
  return cls === 'clientapplication' || (cls === 'user' && actor.roles.includes('ops'));
}

export function canSeeBooking(actor: Actor, b: Pick<CarBooking, 'borrowerId' | 'ownerId'>): boolean {
  return seesAllBookings(actor) || partiesOf(actor, b).length > 0;
}

/**
 * The refusals of CONTRACT §6, in order: not a party → 404 (whatever the action); a party who may never take
 * this action → 403; a party who may, but not from the current state → 409 with the state.
 */
export function authorizeTransition(actor: Actor, b: CarBooking, action: BookingAction): void {
  const mine = partiesOf(actor, b);
  if (mine.length === 0) throw notFound('Booking');
  const byState: Partial<Record<BookingState, readonly Party[]>> = transitions[action];
  const ever = new Set(Object.values(byState).flat());
  if (!mine.some((p) => ever.has(p))) throw forbidden(`You may not ${action} this booking`);
  const now = byState[b.state] ?? [];
  if (!mine.some((p) => now.includes(p)))
    throw invalidState(b.state, `You cannot ${action} a booking that is ${b.state}`);
}

export const carUnavailable = (start: Date, end: Date): DomainError =>
  new DomainError('CarUnavailable', 'The car is not free for this period', {
    meta: { ConflictStartDateUtc: start.toISOString(), ConflictEndDateUtc: end.toISOString() },
  });
