// Who may see and manage a car (CONTRACT §4, §7): users see Listed cars and their own; owners and ops manage.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Actor, actorClass, hasScope, isSelf } from '../access/actor.js';
import { forbidden, notFound } from '../shared/errors.js';
import { Car } from './car.entity.js';

/** Ops, and client applications reading cars network-wide, see every car whatever its status. */
export function seesAllCars(actor: Actor): boolean {
  const cls = actorClass(actor);
  if (cls === 'ops') return true;
  return cls === 'clientapplication' && (hasScope(actor, 'cars:read') || hasScope(actor, 'reports:read'));
}

export function canSeeCar(actor: Actor, car: Pick<Car, 'ownerId' | 'status'>): boolean {
  return seesAllCars(actor) || car.status === 'Listed' || isSelf(actor, car.ownerId);
}

/** The parties who manage a car: its owner and ops. */
export function canManageCar(actor: Actor, car: Pick<Car, 'ownerId'>): boolean {
  return actorClass(actor) === 'ops' || isSelf(actor, car.ownerId);
}

/**
 * Loads a car for one of its parties. `lock` takes the row lock that serialises this change with bookings of
 * the car. Anyone else is told it does not exist (NotFound); with `forbidVisible`, a caller who can see the car
 * is told the action is not theirs (Forbidden), the refusal rule of CONTRACT §6 (a visible resource, an action
 * never allowed to this caller), as lock and unlock answer.
 */
export async function loadManagedCar(
  ctx: { em: EntityManager; actor: Actor },
  id: string,
  lock = false,
  forbidVisible = false,
): Promise<Car> {
  const car = await ctx.em.findOne(Car, { id }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (car && !canManageCar(ctx.actor, car) && forbidVisible && canSeeCar(ctx.actor, car))
    throw forbidden('Only the owner of the car or ops may manage its unavailability');
  if (!car || !canManageCar(ctx.actor, car)) throw notFound('Car');
  return car;
}
