// GraphQL for bookings, car lock/unlock and leaving feedback on a booking: thin; reads through loaders and
// queries, changes through commands. Built around a policy (BOOKING_LEAD_MINUTES) and a lock device port.
import type { IResolvers } from '@graphql-tools/utils';
import { profileByUserId } from '../accounts/account.loaders.js';
import { partnerLoader } from '../accounts/counterparties.js';
import type { AuditDeclarations } from '../audit/audit.declaration.js';
import { carById } from '../cars/car.loaders.js';
import { createFeedback, type FeedbackInput } from '../feedback/feedback.commands.js';
import { feedbacksByBooking } from '../feedback/feedback.loaders.js';
import type { Context } from '../graphql/context.js';
import type { DomainModule } from '../graphql/module.js';
import { ratingBySubject } from '../ratings/rating.loaders.js';
import {
  approveBooking,
  cancelBooking,
  completeBooking,
  declineBooking,
  extendBooking,
  returnBooking,
  useBooking,
} from './booking.commands.js';
import type { BookingPolicy } from './booking.policy.js';
import {
  type BookingFilter,
  getBooking,
  type MyBookingsFilter,
  searchBookings,
  searchCarBookings,
} from './booking.queries.js';
import { estimatedCost } from './booking-cost.js';
import { carOfRequest, type RequestBookingInput, requestBooking } from './booking-request.commands.js';
import { type CarBooking, CarBookingSchema } from './car-booking.entity.js';
import { setCarLock } from './car-lock.commands.js';
import type { CarLockDevice } from './car-lock.port.js';
import { CarLockCommandSchema } from './car-lock-command.entity.js';
import { bookingCounterparties } from './counterparties.adapter.js';

type Id = { id: string };

/** The same per-request loader the accounts module asks (by name), answered by this module's adapter. */
const partners = partnerLoader(bookingCounterparties);
type Reason = Id & { input?: { reason?: string | null } | null };

export interface BookingsDeps {
  policy: BookingPolicy;
  lockDevice: CarLockDevice;
}

export function createBookingsModule({ policy, lockDevice }: BookingsDeps): DomainModule {
  const resolvers: IResolvers<unknown, Context> = {
    Query: {
      bookings: (_: unknown, args: MyBookingsFilter, ctx: Context) => searchBookings(ctx, args),
      carBookings: (_: unknown, { carId, ...args }: BookingFilter & { carId: string }, ctx: Context) =>
        searchCarBookings(ctx, carId, args),
      booking: (_: unknown, { id }: Id, ctx: Context) => getBooking(ctx, id),
    },
    Mutation: {
      requestBooking: (_: unknown, a: { carId: string; input: RequestBookingInput }, ctx: Context) =>
        requestBooking(ctx, policy, a.carId, a.input),
      approveBooking: (_: unknown, { id }: Id, ctx: Context) => approveBooking(ctx, policy, id),
      declineBooking: (_: unknown, { id, input }: Reason, ctx: Context) =>
        declineBooking(ctx, id, input?.reason),
      cancelBooking: (_: unknown, { id, input }: Reason, ctx: Context) =>
        cancelBooking(ctx, id, input?.reason),
      useBooking: (_: unknown, { id }: Id, ctx: Context) => useBooking(ctx, policy, id),
      extendBooking: (
        _: unknown,
        { id, input }: Id & { input?: { endDateUtc?: Date | null } },
        ctx: Context,
      ) => extendBooking(ctx, id, input?.endDateUtc),
      returnBooking: (_: unknown, { id }: Id, ctx: Context) => returnBooking(ctx, id),
      completeBooking: (_: unknown, { id }: Id, ctx: Context) => completeBooking(ctx, id),
      createFeedback: async (
        _: unknown,
        { carBookingId, input }: { carBookingId: string; input: FeedbackInput },
        ctx: Context,
      ) => {
        const b = await getBooking(ctx, carBookingId);
        const facts = {
          id: b.id,
          state: b.state,
          borrowerId: b.borrowerId,
          ownerId: b.ownerId,
          carId: b.carId,
        };
        return createFeedback(ctx, facts, input);
      },
      lockCar: (_: unknown, { id }: Id, ctx: Context) => setCarLock(ctx, lockDevice, id, 'Locked'),
      unlockCar: (_: unknown, { id }: Id, ctx: Context) => setCarLock(ctx, lockDevice, id, 'Unlocked'),
    },
    CarBooking: {
      estimatedCost: (b: CarBooking) =>
        estimatedCost(
          { amount: b.hourlyRateAmount, currency: b.hourlyRateCurrency },
          b.startDateUtc,
          b.endDateUtc,
        ),
      car: (b: CarBooking, _: unknown, ctx: Context) => {
        const written = carOfRequest.get(b);
        if (!written) return carById(ctx).load(b.carId);
        // The car a request was checked against answers its embed. Asking now for its owner's profile and the
        // borrower's rating puts them in the statements that read the borrower's profile and the car's rating.
        void profileByUserId(ctx)
          .load(written.ownerId)
          .catch(() => undefined);
        void ratingBySubject(ctx)
          .load({ subjectType: 'UserAccount', subjectId: b.borrowerId })
          .catch(() => undefined);
        // An Approved request makes borrower and owner each other's counterparty (the phone number rule).
        if (b.state === 'Approved')
          partners(ctx)
            .prime({ viewerId: b.borrowerId, subjectId: b.ownerId }, true)
            .prime({ viewerId: b.ownerId, subjectId: b.borrowerId }, true);
        return written;
      },
      borrower: (b: CarBooking, _: unknown, ctx: Context) => profileByUserId(ctx).load(b.borrowerId),
      // A booking just requested has no feedback yet.
      feedbacks: (b: CarBooking, _: unknown, ctx: Context) =>
        carOfRequest.has(b) ? [] : feedbacksByBooking(ctx).load(b.id),
    },
  };
  return { name: 'bookings', entities: [CarBookingSchema, CarLockCommandSchema], resolvers, audit };
}

/** Operators acting on bookings and cars' locks; a party acting on its own booking is no administrative change. */
const booking = { subjectType: 'CarBooking', subjectId: ({ id }: Id) => id, by: ['ops'] } as const;
const car = { subjectType: 'Car', subjectId: ({ id }: Id) => id, by: ['ops'] } as const;
const audit: AuditDeclarations = {
  approveBooking: booking,
  declineBooking: booking,
  cancelBooking: booking,
  extendBooking: booking,
  returnBooking: booking,
  completeBooking: booking,
  lockCar: car,
  unlockCar: car,
  useBooking: { notAdministrative: 'only the borrower uses a booking' },
  createFeedback: { notAdministrative: 'only a party to the booking leaves feedback, as themselves' },
};
