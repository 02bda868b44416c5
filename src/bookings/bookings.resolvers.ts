// GraphQL for bookings, car lock/unlock and leaving feedback on a booking: thin; reads through loaders and
// queries, changes through commands. Built around a policy (BOOKING_LEAD_MINUTES) and a lock device port.
import type { IResolvers } from '@graphql-tools/utils';
import { profileByUserId } from '../accounts/account.loaders.js';
import type { AuditDeclarations } from '../audit/audit.declaration.js';
import { carById } from '../cars/car.loaders.js';
import { createFeedback, type FeedbackInput } from '../feedback/feedback.commands.js';
import { feedbacksByBooking } from '../feedback/feedback.loaders.js';
import type { Context } from '../graphql/context.js';
import type { DomainModule } from '../graphql/module.js';
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
import { embedsOfRequest, type RequestBookingInput, requestBooking } from './booking-request.commands.js';
import { primeRequestEmbeds } from './booking-request.embeds.js';
import { type CarBooking, CarBookingSchema } from './car-booking.entity.js';
import { setCarLock } from './car-lock.commands.js';
import type { CarLockDevice } from './car-lock.port.js';
import { CarLockCommandSchema } from './car-lock-command.entity.js';

type Id = { id: string };

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
      car: (b: CarBooking, _: unknown, ctx: Context) =>
        // The car a request was checked against answers its embed.
        primeRequestEmbeds(ctx, b) ? embedsOfRequest.get(b)!.car : carById(ctx).load(b.carId),
      borrower: (b: CarBooking, _: unknown, ctx: Context) => {
        primeRequestEmbeds(ctx, b);
        return profileByUserId(ctx).load(b.borrowerId);
      },
      // A booking just requested has no feedback yet.
      feedbacks: (b: CarBooking, _: unknown, ctx: Context) =>
        embedsOfRequest.has(b) ? [] : feedbacksByBooking(ctx).load(b.id),
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
