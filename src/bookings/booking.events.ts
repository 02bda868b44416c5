// The booking events of CONTRACT §8, recorded in the transaction of the change, for the borrower and the owner.
import type { EventName } from '../events/events.js';
import { type EventContext, recordEvent } from '../events/outbox.js';
import type { CarBooking } from './car-booking.entity.js';

type BookingEvent = Extract<EventName, `carbooking_${string}`>;

export function recordBookingEvent(ctx: EventContext, name: BookingEvent, b: CarBooking): void {
  recordEvent(
    ctx,
    name,
    {
      id: b.id,
      reference: b.reference,
      carId: b.carId,
      borrowerId: b.borrowerId,
      state: b.state,
      startDateUtc: b.startDateUtc,
      endDateUtc: b.endDateUtc,
    },
    [b.borrowerId, b.ownerId],
  );
}
