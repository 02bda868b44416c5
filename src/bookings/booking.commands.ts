// The transitions people take on a booking (CONTRACT §6): approve, decline, cancel, use, extend, return,
// complete. Each locks the booking row, so a transition and a timer never both act on one state.
import { LockMode } from '@mikro-orm/core';
import { notFound, ruleViolation } from '../shared/errors.js';
import { Check } from '../shared/validation.js';
import { isSubjectVerified } from '../verifications/verification.loaders.js';
import { recordBookingEvent } from './booking.events.js';
import { type BookingPolicy, minutes, shift } from './booking.policy.js';
import { authorizeTransition, type BookingAction } from './booking.rules.js';
import { assertPeriodFree, flushOccupying, lockCarRow } from './booking-period.js';
import type { BookingContext } from './booking-request.commands.js';
import { CarBooking, moveTo } from './car-booking.entity.js';

async function loadFor(ctx: BookingContext, id: string, action: BookingAction): Promise<CarBooking> {
  const b = await ctx.em.findOne(CarBooking, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!b) throw notFound('Booking');
  authorizeTransition(ctx.actor, b, action);
  return b;
}

function reasonOf(field: string, value: string | null | undefined, required: boolean): string | null {
  const reason = value?.trim() || null;
  const check = new Check();
  if (required) check.required(field, reason);
  check.length(field, reason, 0, 1000);
  check.throwIfAny();
  return reason;
}

export async function approveBooking(ctx: BookingContext, policy: BookingPolicy, id: string) {
  const b = await loadFor(ctx, id, 'approve');
  const now = ctx.clock.now();
  if (now.getTime() >= shift(b.startDateUtc, -minutes(policy.leadMinutes)).getTime())
    throw ruleViolation(
      'DecisionTooLate',
      `A request must be decided at least ${policy.leadMinutes} minutes before it starts`,
    );
  await lockCarRow(ctx.em, b.carId);
  await assertPeriodFree(ctx.em, b.carId, b.startDateUtc, b.endDateUtc, b.id);
  moveTo(b, 'Approved', now);
  await flushOccupying(ctx.em, b, b.startDateUtc, b.endDateUtc);
  recordBookingEvent(ctx, 'carbooking_approve', b);
  return b;
}

export async function declineBooking(ctx: BookingContext, id: string, reason?: string | null) {
  const b = await loadFor(ctx, id, 'decline');
  const now = ctx.clock.now();
  const declineReason = reasonOf('reason', reason, false);
  moveTo(b, 'Declined', now);
  b.declineReason = declineReason;
  return b;
}

export async function cancelBooking(ctx: BookingContext, id: string, reason: string | null | undefined) {
  const b = await loadFor(ctx, id, 'cancel');
  const cancellationReason = reasonOf('reason', reason, true);
  const wasApproved = b.state === 'Approved';
  const now = ctx.clock.now();
  moveTo(b, 'Cancelled', now);
  b.cancellationReason = cancellationReason;
  // A request withdrawn before approval was never a booking: no event (CONTRACT §6).
  if (wasApproved) recordBookingEvent(ctx, 'carbooking_cancel', b);
  return b;
}

export async function useBooking(ctx: BookingContext, policy: BookingPolicy, id: string) {
  const b = await loadFor(ctx, id, 'use');
  const now = ctx.clock.now().getTime();
  const lead = minutes(policy.leadMinutes);
  const opens = new Date(b.startDateUtc.getTime() - lead).toISOString();
  const closes = new Date(b.endDateUtc.getTime() - lead).toISOString();
  if (now < b.startDateUtc.getTime() - lead || now >= b.endDateUtc.getTime() - lead)
    throw ruleViolation(
      'OutsideUseWindow',
      `This booking can be used from ${opens} until ${closes} (${policy.leadMinutes} minutes before its start until ${policy.leadMinutes} minutes before its end)`,
      { OpensDateUtc: opens, ClosesDateUtc: closes },
    );
  if (!(await isSubjectVerified(ctx, { subjectType: 'UserAccount', subjectId: b.borrowerId })))
    throw ruleViolation('BorrowerNotVerified', 'Your Email, PhoneNumber and DriversLicense must be Verified');
  // The car row lock orders this with lock commands, which ask who holds the car.
  await lockCarRow(ctx.em, b.carId);
  const at = ctx.clock.now();
  moveTo(b, 'InUse', at);
  recordBookingEvent(ctx, 'carbooking_use', b);
  return b;
}

/** A new end, later or earlier: after the start and after now, within the car's maximum, free. */
export async function extendBooking(ctx: BookingContext, id: string, endDateUtc: Date | null | undefined) {
  const b = await loadFor(ctx, id, 'extend');
  const now = ctx.clock.now();
  const check = new Check();
  if (check.required('endDateUtc', endDateUtc)) {
    const t = endDateUtc!.getTime();
    if (t <= b.startDateUtc.getTime() || t <= now.getTime())
      check.add('InvalidValue', 'endDateUtc', 'EndDateUtc must be after the start and in the future');
  }
  check.throwIfAny();
  const end = endDateUtc!;
  if (end.getTime() === b.endDateUtc.getTime()) return b;
  const car = await lockCarRow(ctx.em, b.carId);
  if (car && end.getTime() - b.startDateUtc.getTime() > minutes(car.maximumBookingMinutes))
    throw ruleViolation(
      'DurationOutOfRange',
      `This car is booked for at most ${car.maximumBookingMinutes} minutes`,
    );
  await assertPeriodFree(ctx.em, b.carId, b.startDateUtc, end, b.id);
  b.endDateUtc = end;
  b.lastModifiedDateUtc = now;
  await flushOccupying(ctx.em, b, b.startDateUtc, end);
  recordBookingEvent(ctx, 'carbooking_extend', b);
  return b;
}

/** By the borrower; the owner or ops force it. */
export async function returnBooking(ctx: BookingContext, id: string) {
  const b = await loadFor(ctx, id, 'return');
  const now = ctx.clock.now();
  moveTo(b, 'Returned', now);
  recordBookingEvent(ctx, 'carbooking_return', b);
  return b;
}

export async function completeBooking(ctx: BookingContext, id: string) {
  const b = await loadFor(ctx, id, 'complete');
  const now = ctx.clock.now();
  moveTo(b, 'Completed', now);
  recordBookingEvent(ctx, 'carbooking_complete', b);
  return b;
}
