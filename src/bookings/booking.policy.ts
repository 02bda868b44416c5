// The timing rules of bookings (CONTRACT §6, §12): the lead before start and end, and the auto-complete delay.

export interface BookingPolicy {
  /**
   * BOOKING_LEAD_MINUTES: a request starts at least this long after now; owners decide, and the system
   * expires undecided requests, this long before start; use opens this long before start and closes (no-show)
   * this long before end.
   */
  leadMinutes: number;
  /** A Returned booking the owner does not complete is completed by the system this long after return. */
  autoCompleteAfterMinutes: number;
}

export const defaultBookingPolicy: BookingPolicy = Object.freeze({
  leadMinutes: 15,
  autoCompleteAfterMinutes: 72 * 60,
});

export const bookingPolicy = (leadMinutes: number): BookingPolicy =>
  Object.freeze({ ...defaultBookingPolicy, leadMinutes });

const MINUTE = 60_000;
export const minutes = (n: number): number => n * MINUTE;
export const shift = (d: Date, ms: number): Date => new Date(d.getTime() + ms);
