// Requesting a booking (CONTRACT §6 request): a verified borrower asks for a free period of a bookable car
// that is not theirs; the car's AutoApprove makes it Approved at once.
import { isSelf } from '../access/actor.js';
import { Profile } from '../accounts/profile.entity.js';
import type { Car } from '../cars/car.entity.js';
import { plainRows } from '../db/rows.js';
import type { Context } from '../graphql/context.js';
import { Rating } from '../ratings/rating.entity.js';
import { forbidden, notFound, ruleViolation } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { checkRange } from '../shared/pagination.js';
import { Check } from '../shared/validation.js';
import { Verification } from '../verifications/verification.entity.js';
import { bookingEventValues } from './booking.events.js';
import { type BookingPolicy, minutes, shift } from './booking.policy.js';
import { carUnavailable } from './booking.rules.js';
import { asCarUnavailable, lockCarRowPlain } from './booking-period.js';
import { newReference } from './booking-reference.js';
import { checkAndInsert } from './booking-request.sql.js';
import type { CarBooking } from './car-booking.entity.js';

export type BookingContext = Pick<Context, 'em' | 'actor' | 'clock' | 'loaders'>;

export interface RequestBookingInput {
  startDateUtc?: Date | null;
  endDateUtc?: Date | null;
  message?: string | null;
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

/**
 * What the answer to a request embeds, read by its check-and-insert statement: the car it was checked against,
 * the profiles of borrower and owner, the ratings of car, borrower and owner, and the car's verifications.
 * Kept with the booking so the answer reads none of them again (plain rows, as the loaders give them).
 */
export interface RequestEmbeds {
  car: Car;
  profiles: Profile[];
  ratings: Rating[];
  carVerifications: Verification[];
}
export const embedsOfRequest = new WeakMap<CarBooking, RequestEmbeds>();

const ATTEMPTS = 5;

/**
 * Two statements: the car's row lock (it orders this with approvals, unavailabilities and deleting the car),
 * then the checks, the insert and the outbox event together. A reference already taken (about one in 10^12)
 * inserts nothing, and the statement runs again with another.
 */
export async function requestBooking(
  ctx: BookingContext,
  policy: BookingPolicy,
  carId: string,
  input: RequestBookingInput,
): Promise<CarBooking> {
  const car = await lockCarRowPlain(ctx.em, carId);
  if (!car) throw notFound('Car');
  if (isSelf(ctx.actor, car.ownerId)) throw forbidden('You cannot book your own car');
  const { start, end, message } = checkInput(input);
  const now = ctx.clock.now();
  const length = end.getTime() - start.getTime();
  const tooSoon = start.getTime() < shift(now, minutes(policy.leadMinutes)).getTime();
  const badLength =
    length < minutes(car.minimumBookingMinutes) || length > minutes(car.maximumBookingMinutes);
  const approved = car.autoApprove;
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const values = {
      id: newId(),
      reference: newReference(),
      carId: car.id,
      borrowerId: ctx.actor.id!,
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
    } as const;
    // The statement below writes the row: the answer is a plain object shaped like the entity, which the unit of
    // work neither tracks nor flushes (no entity to build, no change set to compute at commit).
    const b = values as CarBooking;
    const ev = approved ? bookingEventValues(ctx, 'carbooking_approve', b) : null;
    const out = await checkAndInsert(ctx.em, {
      booking: columnsOf(values),
      rulesHold: !tooSoon && !badLength,
      event: ev && {
        id: ev.id,
        name: ev.name,
        payload: JSON.stringify(ev.payload),
        audience: JSON.stringify(ev.audienceUserIds),
        occurred: ev.occurredDateUtc,
        requestId: ev.requestId,
      },
    }).catch(async (e) => {
      throw await asCarUnavailable(e, ctx.em, { id: values.id, carId: car.id, start, end });
    });
    // The refusals in the order of CONTRACT §6.
    if (!out.borrowerVerified)
      throw ruleViolation(
        'BorrowerNotVerified',
        'Your Email, PhoneNumber and DriversLicense must be Verified',
      );
    if (!out.carBookable)
      throw ruleViolation('CarNotBookable', 'The car is not listed, not verified, or its owner is suspended');
    if (tooSoon)
      throw ruleViolation(
        'StartTooSoon',
        `A booking must start at least ${policy.leadMinutes} minutes from now`,
      );
    if (badLength)
      throw ruleViolation(
        'DurationOutOfRange',
        `This car is booked for ${car.minimumBookingMinutes} to ${car.maximumBookingMinutes} minutes`,
      );
    if (out.conflict) throw carUnavailable(out.conflict.start, out.conflict.end);
    if (out.written) {
      const e = out.embeds;
      embedsOfRequest.set(b, {
        car,
        profiles: plainRows(ctx.em, Profile, e?.profiles ?? []),
        ratings: plainRows(ctx.em, Rating, e?.ratings ?? []),
        carVerifications: plainRows(ctx.em, Verification, e?.carVerifications ?? []),
      });
      return b;
    }
  }
  throw new Error('no free booking reference after several attempts');
}

/** Column names by property name: the same two dozen on every request. */
const columnNames = new Map<string, string>();
const columnOf = (k: string): string => {
  let c = columnNames.get(k);
  if (c === undefined) {
    c = k.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`);
    columnNames.set(k, c);
  }
  return c;
};

/** The entity's values as the table's columns (jsonb_populate_record reads them by column name). */
function columnsOf(v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in v) {
    const value = v[k];
    out[columnOf(k)] = value instanceof Date ? value.toISOString() : value;
  }
  return out;
}
