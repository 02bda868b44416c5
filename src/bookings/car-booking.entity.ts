// A borrower's booking of a car, from request to completion (CONTRACT §5 CarBooking, §6 states).
import { defineEntity, p } from '@mikro-orm/core';
import { carShareIdProperty } from '../db/car-share-condition.js';

export const bookingStates = [
  'Pending',
  'Approved',
  'Declined',
  'Expired',
  'Cancelled',
  'InUse',
  'Returned',
  'Completed',
] as const;
export type BookingState = (typeof bookingStates)[number];

/** No transition leaves these. */
export const terminalStates = [
  'Declined',
  'Expired',
  'Cancelled',
  'Completed',
] as const satisfies readonly BookingState[];
/** The states that hold the car: no two bookings of a car in these may overlap (the exclusion constraint). */
export const occupyingStates = ['Approved', 'InUse'] as const satisfies readonly BookingState[];
/** Not finished yet: they forbid deleting the car. */
export const openStates = bookingStates.filter(
  (s) => !(terminalStates as readonly string[]).includes(s),
) as readonly BookingState[];

/** A list of states for SQL `in (...)`; the names are constants of ours, never input. */
export const sqlStates = (states: readonly BookingState[]): string => states.map((s) => `'${s}'`).join(', ');

export const CarBookingSchema = defineEntity({
  name: 'CarBooking',
  tableName: 'car_booking',
  properties: {
    id: p.uuid().primary(),
    carShareId: carShareIdProperty(),
    /** 8 characters from A–Z and 2–9, random: what people quote; unguessable, unlike a sequence. */
    reference: p.string().length(8).unique(),
    /** No foreign key: a deleted car leaves its bookings' history (and their feedback) in place. */
    carId: p.uuid(),
    borrowerId: p.uuid(),
    /** The car's owner when requested; stored so "my bookings as owner" needs no join. */
    ownerId: p.uuid(),
    state: p.string().$type<BookingState>(),
    startDateUtc: p.datetime(),
    endDateUtc: p.datetime(),
    message: p.text().nullable(),
    requestedDateUtc: p.datetime(),
    approvedDateUtc: p.datetime().nullable(),
    declinedDateUtc: p.datetime().nullable(),
    expiredDateUtc: p.datetime().nullable(),
    cancelledDateUtc: p.datetime().nullable(),
    usedDateUtc: p.datetime().nullable(),
    returnedDateUtc: p.datetime().nullable(),
    completedDateUtc: p.datetime().nullable(),
    cancellationReason: p.text().nullable(),
    /** Kept for the record; the contract shows no field for it. */
    declineReason: p.text().nullable(),
    isNoShow: p.boolean().default(false),
    /** The car's hourly rate when requested: the price the borrower asked for (EstimatedCost). */
    hourlyRateAmount: p.decimal('string').precision(12).scale(2),
    hourlyRateCurrency: p.string().length(3),
    createdDateUtc: p.datetime(),
    lastModifiedDateUtc: p.datetime(),
  },
});
export class CarBooking extends CarBookingSchema.class {}
CarBookingSchema.setClass(CarBooking);

/** The date each state change stamps. */
export const stampOf = {
  Pending: 'requestedDateUtc',
  Approved: 'approvedDateUtc',
  Declined: 'declinedDateUtc',
  Expired: 'expiredDateUtc',
  Cancelled: 'cancelledDateUtc',
  InUse: 'usedDateUtc',
  Returned: 'returnedDateUtc',
  Completed: 'completedDateUtc',
} as const satisfies Record<BookingState, keyof CarBooking>;

/** Moves a booking to a state, stamping when. */
export function moveTo(b: CarBooking, to: BookingState, now: Date): void {
  b.state = to;
  b[stampOf[to]] = now;
  b.lastModifiedDateUtc = now;
}
