// Declaring and removing the times a car cannot be booked; by its owner or ops (CONTRACT §7).

import type { CommandContext } from '../graphql/context.js';
import { DomainError, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { checkRange } from '../shared/pagination.js';
import { Check } from '../shared/validation.js';
import { loadManagedCar } from './car.rules.js';
import { type CarOccupancy, isOccupied } from './car-occupancy.js';
import { Unavailability, type UnavailabilityReason, unavailabilityReasons } from './unavailability.entity.js';

export interface CreateUnavailabilityInput {
  startDateUtc?: Date | null;
  endDateUtc?: Date | null;
  reason?: string | null;
  note?: string | null;
}

export async function createUnavailability(
  ctx: CommandContext,
  occupancy: CarOccupancy,
  carId: string,
  input: CreateUnavailabilityInput,
): Promise<Unavailability> {
  const check = new Check();
  check.required('startDateUtc', input.startDateUtc);
  check.required('endDateUtc', input.endDateUtc);
  check.oneOf('reason', input.reason, unavailabilityReasons);
  check.length('note', input.note, 0, 1000);
  check.throwIfAny();
  const start = input.startDateUtc!;
  const end = input.endDateUtc!;
  checkRange('startDateUtc', start, 'endDateUtc', end);

  // The row lock serialises this with approvals of the car's bookings, so neither slips past the other.
  const car = await loadManagedCar(ctx, carId, true, true);
  if (await isOccupied(ctx.em, occupancy, car.id, start, end))
    throw new DomainError('Conflict', 'An Approved or InUse booking of the car overlaps this period', {
      meta: { Reason: 'BookingOverlaps' },
    });
  const now = ctx.clock.now();
  const u = ctx.em.create(Unavailability, {
    id: newId(),
    carId: car.id,
    startDateUtc: start,
    endDateUtc: end,
    reason: (input.reason ?? 'Other') as UnavailabilityReason,
    note: input.note?.trim() || null,
    createdDateUtc: now,
    lastModifiedDateUtc: now,
  });
  await ctx.em.flush();
  return u;
}

export async function deleteUnavailability(
  ctx: CommandContext,
  carId: string,
  id: string,
): Promise<{ id: string }> {
  const car = await loadManagedCar(ctx, carId, false, true);
  const u = await ctx.em.findOne(Unavailability, { id, carId: car.id });
  if (!u) throw notFound('Unavailability');
  ctx.em.remove(u);
  await ctx.em.flush();
  return { id };
}
