// The bookings of the sample, each moved through CONTRACT §6 by the person who would: two trips finished and
// rated, one under way, one approved, one awaiting the owner, one declined and one cancelled.
import {
  approveBooking,
  cancelBooking,
  completeBooking,
  declineBooking,
  returnBooking,
  useBooking,
} from '../bookings/booking.commands.js';
import { requestBooking } from '../bookings/booking-request.commands.js';
import type { CarBooking } from '../bookings/car-booking.entity.js';
import type { Car } from '../cars/car.entity.js';
import { createFeedback } from '../feedback/feedback.commands.js';
import { dayAt, hourAt, hours, type Seeder } from './seed.context.js';

interface Trip {
  car: Car;
  borrowerId: string;
  requestedAt: Date;
  start: Date;
  end: Date;
  message?: string;
}

/**
 * The borrower asks; a car that does not approve by itself is approved by its owner ten minutes later (if asked),
 * well before any BOOKING_LEAD_MINUTES under two hours closes the decision.
 */
async function request(s: Seeder, t: Trip, approve: boolean): Promise<CarBooking> {
  s.at(t.requestedAt);
  const b = await s.step(t.borrowerId, (ctx) =>
    requestBooking(ctx, s.policy, t.car.id, {
      startDateUtc: t.start,
      endDateUtc: t.end,
      message: t.message ?? null,
    }),
  );
  if (!approve || b.state === 'Approved') return b;
  s.at(new Date(t.requestedAt.getTime() + 10 * 60_000));
  return s.step(t.car.ownerId, (ctx) => approveBooking(ctx, s.policy, b.id));
}

/** A trip taken from start to end, completed by the owner, and rated by both. */
async function finishedTrip(s: Seeder, t: Trip, ratings: { ofCar: Rated; ofBorrower: Rated }) {
  const b = await request(s, t, true);
  s.at(t.start);
  await s.step(t.borrowerId, (ctx) => useBooking(ctx, s.policy, b.id));
  s.at(new Date(t.end.getTime() - 20 * 60_000));
  await s.step(t.borrowerId, (ctx) => returnBooking(ctx, b.id));
  s.at(new Date(t.end.getTime() + hours(1)));
  const done = await s.step(t.car.ownerId, (ctx) => completeBooking(ctx, b.id));
  s.at(new Date(t.end.getTime() + hours(2)));
  await s.step(t.borrowerId, (ctx) => createFeedback(ctx, done, ratings.ofCar));
  s.at(new Date(t.end.getTime() + hours(3)));
  await s.step(t.car.ownerId, (ctx) => createFeedback(ctx, done, ratings.ofBorrower));
}

interface Rated {
  rating: number;
  comment: string;
}

export async function seedHistory(s: Seeder, cars: readonly Car[], borrowerId: string): Promise<void> {
  const now = s.now;
  const car = (i: number): Car => cars[i]!;
  const trip = (i: number, requestedAt: Date, start: Date, end: Date, message?: string): Trip => ({
    car: car(i),
    borrowerId,
    requestedAt,
    start,
    end,
    ...(message ? { message } : {}),
  });

  await finishedTrip(s, trip(0, dayAt(now, -10, 18), dayAt(now, -9, 9), dayAt(now, -9, 13), 'Moving boxes'), {
    ofCar: { rating: 5, comment: 'Spotless and fully charged. Easy pick-up on the canal.' },
    ofBorrower: { rating: 5, comment: 'Returned on time and clean.' },
  });
  await finishedTrip(s, trip(2, dayAt(now, -6, 10), dayAt(now, -5, 14), dayAt(now, -5, 18)), {
    ofCar: { rating: 4, comment: 'Great for a trip to the beach; the parking spot was hard to find.' },
    ofBorrower: { rating: 5, comment: 'Friendly and careful. Welcome back any time.' },
  });
  // Under way: started an hour ago, back in three.
  const inUse = await request(s, trip(4, hourAt(now, -3), hourAt(now, -1), hourAt(now, 3)), true);
  s.at(hourAt(now, -1));
  await s.step(borrowerId, (ctx) => useBooking(ctx, s.policy, inUse.id));
  // Approved by the car itself (AutoApprove), the day after tomorrow.
  await request(
    s,
    trip(3, hourAt(now, -2), dayAt(now, 2, 10), dayAt(now, 2, 16), 'Day trip to Zandvoort'),
    false,
  );
  // Waiting for its owner's decision.
  await request(s, trip(5, hourAt(now, -1), dayAt(now, 3, 9), dayAt(now, 3, 12)), false);
  // Declined by the owner.
  const declined = await request(s, trip(1, dayAt(now, -1, 9), dayAt(now, 4, 10), dayAt(now, 4, 13)), false);
  s.at(dayAt(now, -1, 11));
  await s.step(car(1).ownerId, (ctx) =>
    declineBooking(ctx, declined.id, 'The car is at the garage that day.'),
  );
  // Approved, then cancelled by the borrower.
  const cancelled = await request(s, trip(2, dayAt(now, -2, 10), dayAt(now, 5, 9), dayAt(now, 5, 17)), true);
  s.at(dayAt(now, -1, 20));
  await s.step(borrowerId, (ctx) =>
    cancelBooking(ctx, cancelled.id, 'Plans changed, sorry for the short notice.'),
  );
}
