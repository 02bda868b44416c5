// The booking events of CONTRACT §8, recorded in the transaction of the change, for the borrower and the owner.
import type { EventName } from '../events/events.js';
import { type EventContext, outboxValues, recordEvent } from '../events/outbox.js';
import type { CarBooking } from './car-booking.entity.js';

type BookingEvent = Extract<EventName, `carbooking_${string}`>;

const fieldsOf = (b: CarBooking) => ({
  id: b.id,
  reference: b.reference,
  carId: b.carId,
  borrowerId: b.borrowerId,
  state: b.state,
  startDateUtc: b.startDateUtc,
  endDateUtc: b.endDateUtc,
});

/** The outbox row of a booking event, for a statement that writes it with the booking itself. */
export const bookingEventValues = (ctx: Omit<EventContext, 'em'>, name: BookingEvent, b: CarBooking) =>
  outboxValues(ctx, name, fieldsOf(b), [b.borrowerId, b.ownerId]);

export function recordBookingEvent(ctx: EventContext, name: BookingEvent, b: CarBooking): void {
  recordEvent(ctx, name, fieldsOf(b), [b.borrowerId, b.ownerId]);
}
