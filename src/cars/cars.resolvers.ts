// GraphQL for cars and their unavailabilities: thin; reads through loaders and queries, changes through
// commands. The module is built around a CarOccupancy so that bookings can answer for themselves.
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLResolveInfo } from 'graphql';
import { profileByUserId } from '../accounts/account.loaders.js';
import type { UserAccount } from '../accounts/user-account.entity.js';
import type { AuditDeclarations } from '../audit/audit.declaration.js';
import type { Context } from '../graphql/context.js';
import type { DomainModule } from '../graphql/module.js';
import { ratingBySubject } from '../ratings/rating.loaders.js';
import type { PageArgs } from '../shared/pagination.js';
import { isSubjectVerified, verificationsBySubject } from '../verifications/verification.loaders.js';
import { type CreateCarInput, createCar, deleteCar, listCar, unlistCar, updateCar } from './car.commands.js';
import { type Car, CarSchema } from './car.entity.js';
import { isCarOwner } from './car.loaders.js';
import { type CarFilter, getCar, searchCars } from './car.queries.js';
import type { CarDetailsInput } from './car-details.js';
import { selectedEmbeds, selectedPageEmbeds } from './car-embeds.js';
import type { CarOccupancy } from './car-occupancy.js';
import {
  type CreateUnavailabilityInput,
  createUnavailability,
  deleteUnavailability,
} from './unavailability.commands.js';
import { UnavailabilitySchema } from './unavailability.entity.js';
import { searchUnavailabilities } from './unavailability.queries.js';

type Id = { id: string };
type CarRef = { carId: string };

/** Whether the field being resolved selects `name` directly (fragments are not looked into). */
const selectsField = (info: GraphQLResolveInfo, name: string): boolean =>
  info.fieldNodes.some((f) =>
    f.selectionSet?.selections.some((s) => s.kind === 'Field' && s.name.value === name),
  );

export function createCarsModule(occupancy: CarOccupancy): DomainModule {
  const resolvers: IResolvers<unknown, Context> = {
    Query: {
      cars: (_: unknown, args: CarFilter, ctx: Context, info: GraphQLResolveInfo) =>
        searchCars(ctx, occupancy, args, selectedPageEmbeds(info)),
      car: (_: unknown, { id }: Id, ctx: Context, info: GraphQLResolveInfo) =>
        getCar(ctx, id, selectedEmbeds(info)),
      unavailabilities: (_: unknown, { carId, ...page }: CarRef & PageArgs, ctx: Context) =>
        searchUnavailabilities(ctx, carId, page),
    },
    Mutation: {
      createCar: (_: unknown, { input }: { input: CreateCarInput }, ctx: Context) => createCar(ctx, input),
      updateCar: (_: unknown, { id, input }: Id & { input: CarDetailsInput }, ctx: Context) =>
        updateCar(ctx, id, input),
      deleteCar: (_: unknown, { id }: Id, ctx: Context) => deleteCar(ctx, occupancy, id),
      listCar: (_: unknown, { id }: Id, ctx: Context) => listCar(ctx, id),
      unlistCar: (_: unknown, { id }: Id, ctx: Context) => unlistCar(ctx, id),
      createUnavailability: (
        _: unknown,
        { carId, input }: CarRef & { input: CreateUnavailabilityInput },
        ctx: Context,
      ) => createUnavailability(ctx, occupancy, carId, input),
      deleteUnavailability: (_: unknown, { carId, id }: CarRef & Id, ctx: Context) =>
        deleteUnavailability(ctx, carId, id),
    },
    Car: {
      licensePlate: (c: Car) => ({ jurisdiction: c.licensePlateJurisdiction, number: c.licensePlateNumber }),
      homeLocation: (c: Car) => ({
        address: c.homeAddress,
        latitude: c.homeLatitude,
        longitude: c.homeLongitude,
      }),
      hourlyRate: (c: Car) => ({ amount: c.hourlyRateAmount, currency: c.hourlyRateCurrency }),
      isVerified: (c: Car, _: unknown, ctx: Context) =>
        isSubjectVerified(ctx, { subjectType: 'Car', subjectId: c.id }),
      // `known`: what the car's own statement primed is returned as it is (src/graphql/loaders.ts).
      verifications: (c: Car, _: unknown, ctx: Context) =>
        verificationsBySubject(ctx).known({ subjectType: 'Car', subjectId: c.id }),
      rating: (c: Car, _: unknown, ctx: Context) =>
        ratingBySubject(ctx).known({ subjectType: 'Car', subjectId: c.id }),
      owner: (c: Car, _: unknown, ctx: Context, info: GraphQLResolveInfo) => {
        // The owner's rating, when asked for and not read with the car, is known from the car already: loading it now
        // puts it in the same statement as the cars' own ratings (one statement fewer for cars read without it).
        if (selectsField(info, 'rating')) {
          const rating = ratingBySubject(ctx).known({ subjectType: 'UserAccount', subjectId: c.ownerId });
          if (rating instanceof Promise) rating.catch(() => undefined);
        }
        return profileByUserId(ctx).known(c.ownerId);
      },
    },
    // Accounts may not import cars, so the cars module answers this field of UserAccount.
    UserAccount: {
      isCarOwner: (u: UserAccount, _: unknown, ctx: Context) => isCarOwner(ctx).load(u.id),
    },
  };
  return { name: 'cars', entities: [CarSchema, UnavailabilitySchema], resolvers, audit };
}

/** Operators acting on cars (an owner managing their own car is no administrative change). */
const byId = { subjectType: 'Car', subjectId: ({ id }: { id: string }) => id, by: ['ops'] } as const;
const byCarId = { subjectType: 'Car', subjectId: (a: { carId: string }) => a.carId, by: ['ops'] } as const;
const audit: AuditDeclarations = {
  createCar: { subjectType: 'Car', subjectId: (_, r: { id: string }) => r.id, by: ['ops'] },
  updateCar: byId,
  deleteCar: byId,
  listCar: byId,
  unlistCar: byId,
  createUnavailability: byCarId,
  deleteUnavailability: byCarId,
};
