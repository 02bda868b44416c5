// Requesting a booking (CONTRACT §6 request): a verified borrower asks for a free period of a bookable car
// that is not theirs; the car's AutoApprove makes it Approved at once.
import { UserAccount } from '../accounts/user-account.entity.js';
import { isSelf } from '../auth/actor.js';
import type { Car } from '../cars/car.entity.js';
import type { Context } from '../graphql/context.js';
import { forbidden, notFound, ruleViolation } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { checkRange } from '../shared/pagination.js';
import { Check } from '../shared/validation.js';
import { isSubjectVerified } from '../verifications/verification.loaders.js';
import { recordBookingEvent } from './booking.events.js';
import { type BookingPolicy, minutes, shift } from './booking.policy.js';
import { assertPeriodFree, flushOccupying, lockCarRow } from './booking-period.js';
import { freshReference } from './booking-reference.js';
import { CarBooking } from './car-booking.entity.js';

export type BookingContext = Pick<Context, 'em' | 'actor' | 'clock' | 'loaders'>;

export interface RequestBookingInput {
  startDateUtc?: Date | null;
  endDateUtc?: Date | null;
  message?: string | null;
}

/** Listed, its required verifications Verified, its owner's account Active (CONTRACT §5 Car). */
export async function isCarBookable(ctx: BookingContext, car: Car): Promise<boolean> {
  if (car.status !== 'Listed') return false;
  if (!(await isSubjectVerified(ctx, { subjectType: 'Car', subjectId: car.id }))) return false;
  const owner = await ctx.em.findOne(UserAccount, { id: car.ownerId }, { fields: ['id', 'status'] });
  return owner?.status === 'Active';
}

function checkInput(input: RequestBookingInput): { start: Date; end: Date; message: string | null } {
  const check = new Check();
  check.required('startDateUtc', input.startDateUtc);
  check.required('endDateUtc', input.endDateUtc);
  const message = input.message?.trim() || null;
  check.length('message', message, 0, 1000);
  check.throwIfAny();
  checkRange('startDateUtc', input.startDateUtc, 'endDateUtc', input.endDateUtc);
  return { start: input.startDateUtc!, end: input.endDateUtc!, message };
}

export async function requestBooking(
  ctx: BookingContext,
  policy: BookingPolicy,
  carId: string,
  input: RequestBookingInput,
): Promise<CarBooking> {
  // The row lock orders this with approvals, unavailabilities and deleting the car.
  const car = await lockCarRow(ctx.em, carId);
  if (!car) throw notFound('Car');
  if (isSelf(ctx.actor, car.ownerId)) throw forbidden('You cannot book your own car');
  const { start, end, message } = checkInput(input);
  const borrowerId = ctx.actor.id!;
  if (!(await isSubjectVerified(ctx, { subjectType: 'UserAccount', subjectId: borrowerId })))
    throw ruleViolation('BorrowerNotVerified', 'Your Email, PhoneNumber and DriversLicense must be Verified');
  if (!(await isCarBookable(ctx, car)))
    throw ruleViolation('CarNotBookable', 'The car is not listed, not verified, or its owner is suspended');
  const now = ctx.clock.now();
  if (start.getTime() < shift(now, minutes(policy.leadMinutes)).getTime())
    throw ruleViolation(
      'StartTooSoon',
      `A booking must start at least ${policy.leadMinutes} minutes from now`,
    );
  const length = end.getTime() - start.getTime();
  if (length < minutes(car.minimumBookingMinutes) || length > minutes(car.maximumBookingMinutes))
    throw ruleViolation(
      'DurationOutOfRange',
      `This car is booked for ${car.minimumBookingMinutes} to ${car.maximumBookingMinutes} minutes`,
    );
  const id = newId();
  await assertPeriodFree(ctx.em, car.id, start, end, id);
  const approved = car.autoApprove;
  const b = ctx.em.create(CarBooking, {
    id,
    reference: await freshReference(ctx.em),
    carId: car.id,
    borrowerId,
    ownerId: car.ownerId,
    state: approved ? 'Approved' : 'Pending',
    startDateUtc: start,
    endDateUtc: end,
    message,
    requestedDateUtc: now,
    approvedDateUtc: approved ? now : null,
    declinedDateUtc: null,
    expiredDateUtc: null,
    cancelledDateUtc: null,
    usedDateUtc: null,
    returnedDateUtc: null,
    completedDateUtc: null,
    cancellationReason: null,
    declineReason: null,
    isNoShow: false,
    hourlyRateAmount: car.hourlyRateAmount,
    hourlyRateCurrency: car.hourlyRateCurrency,
    createdDateUtc: now,
    lastModifiedDateUtc: now,
  });
  await flushOccupying(ctx.em, start, end);
  if (approved) recordBookingEvent(ctx, 'carbooking_approve', b);
  return b;
}
