// The business verbs of cars: create, update, delete, list and unlist. Cars raise no events (CONTRACT §8).
import { actorClass } from '../access/actor.js';
import { UserAccount } from '../accounts/user-account.entity.js';
import type { CommandContext } from '../graphql/context.js';
import { DomainError, forbidden } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { Check } from '../shared/validation.js';
import { createRequiredVerifications, resetVerification } from '../verifications/verification.commands.js';
import { Verification } from '../verifications/verification.entity.js';
import { Car, type CarStatus } from './car.entity.js';
import { loadManagedCar } from './car.rules.js';
import { type CarDetailsInput, checkCarDetails } from './car-details.js';
import type { CarOccupancy } from './car-occupancy.js';

export interface CreateCarInput extends CarDetailsInput {
  /** Ops only: the user the car is registered for. */
  ownerId?: string | null;
}

async function ownerFor(ctx: CommandContext, ownerId: string | null | undefined): Promise<string> {
  const self = ctx.actor.id!;
  if (ownerId == null || ownerId === self) return self;
  if (actorClass(ctx.actor) !== 'ops') throw forbidden('Only operators may register a car for another user');
  if (!(await ctx.em.findOne(UserAccount, { id: ownerId }, { fields: ['id'] }))) {
    const check = new Check().add('InvalidValue', 'ownerId', 'OwnerId names no user account');
    check.throwIfAny();
  }
  return ownerId;
}

/** A new car is a Draft, Locked, with its required verifications Unverified. */
export async function createCar(ctx: CommandContext, input: CreateCarInput): Promise<Car> {
  const now = ctx.clock.now();
  const details = checkCarDetails(input, null, now);
  const ownerId = await ownerFor(ctx, input.ownerId);
  const car = ctx.em.create(Car, {
    ...(details as Required<typeof details>),
    id: newId(),
    ownerId,
    status: 'Draft',
    lockState: 'Locked',
    lockStateChangedDateUtc: null,
    createdDateUtc: now,
    lastModifiedDateUtc: now,
  });
  createRequiredVerifications(ctx, 'Car', car.id, ownerId);
  await ctx.em.flush();
  return car;
}

export async function updateCar(ctx: CommandContext, id: string, input: CarDetailsInput): Promise<Car> {
  const car = await loadManagedCar(ctx, id);
  const changes = checkCarDetails(input, car, ctx.clock.now());
  const changed = (Object.keys(changes) as (keyof typeof changes)[]).filter((k) => car[k] !== changes[k]);
  if (changed.length === 0) return car;
  const plateChanged = changed.includes('licensePlateJurisdiction') || changed.includes('licensePlateNumber');
  Object.assign(car, changes, { lastModifiedDateUtc: ctx.clock.now() });
  // A new plate is a different plate: it has to be verified again (CONTRACT §5 Verification).
  if (plateChanged) await resetVerification(ctx, 'Car', car.id, 'LicensePlate');
  await ctx.em.flush();
  return car;
}

export async function deleteCar(
  ctx: CommandContext,
  occupancy: CarOccupancy,
  id: string,
): Promise<{ id: string }> {
  // The row lock makes a booking request for this car wait for the delete, or the delete for it.
  const car = await loadManagedCar(ctx, id, true);
  if (await occupancy.hasOpenBookings(ctx.em, car.id))
    throw new DomainError('Conflict', 'The car has bookings that are not finished yet', {
      meta: { Reason: 'CarHasBookings' },
    });
  // Its unavailabilities go with it (foreign key cascade); its verifications have no foreign key to cars.
  await ctx.em.nativeDelete(Verification, { subjectType: 'Car', subjectId: car.id });
  ctx.em.remove(car);
  await ctx.em.flush();
  return { id };
}

async function setStatus(ctx: CommandContext, id: string, to: CarStatus, from: readonly CarStatus[]) {
  const car = await loadManagedCar(ctx, id);
  if (from.includes(car.status)) {
    car.status = to;
    car.lastModifiedDateUtc = ctx.clock.now();
    await ctx.em.flush();
  }
  return car;
}

/** Draft or Unlisted → Listed; listing a Listed car changes nothing. */
export const listCar = (ctx: CommandContext, id: string) =>
  setStatus(ctx, id, 'Listed', ['Draft', 'Unlisted']);
/** Listed → Unlisted; a Draft (never listed) or Unlisted car stays as it is. */
export const unlistCar = (ctx: CommandContext, id: string) => setStatus(ctx, id, 'Unlisted', ['Listed']);
