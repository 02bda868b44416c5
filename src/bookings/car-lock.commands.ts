// Locking and unlocking a car (CONTRACT §7): the borrower of its InUse booking, the owner while no booking is
// InUse, ops any time; idempotent. Lives with bookings because who may act depends on the InUse booking.
import { type Actor, actorClass, isSelf } from '../access/actor.js';
import { requireScope } from '../access/permissions.js';
import type { Car, LockState } from '../cars/car.entity.js';
import { canSeeCar } from '../cars/car.rules.js';
import { DomainError, forbidden, notFound } from '../shared/errors.js';
import { lockCarRow } from './booking-period.js';
import type { BookingContext } from './booking-request.commands.js';
import { CarBooking } from './car-booking.entity.js';
import type { CarLockDevice } from './car-lock.port.js';

async function authorizeLock(ctx: BookingContext, actor: Actor, car: Car): Promise<void> {
  if (actorClass(actor) === 'ops') return;
  const inUse = await ctx.em.find(CarBooking, { carId: car.id, state: 'InUse' }, { fields: ['borrowerId'] });
  if (inUse.some((b) => isSelf(actor, b.borrowerId))) return requireScope(actor, 'bookings:write');
  if (isSelf(actor, car.ownerId)) {
    requireScope(actor, 'cars:write');
    // The car is in someone else's hands: the owner neither controls nor tracks it meanwhile.
    if (inUse.length > 0)
      throw new DomainError(
        'Conflict',
        'The car is in use by a borrower; it cannot be locked or unlocked by its owner now',
        {
          meta: { Reason: 'CarInUse' },
        },
      );
    return;
  }
  if (canSeeCar(actor, car))
    throw forbidden('Only the borrower of the InUse booking, the owner or ops may do this');
  throw notFound('Car');
}

export async function setCarLock(
  ctx: BookingContext,
  device: CarLockDevice,
  carId: string,
  target: LockState,
): Promise<Car> {
  // The row lock orders this with other lock commands and with a booking of the car starting its use.
  const car = await lockCarRow(ctx.em, carId);
  if (!car) throw notFound('Car');
  await authorizeLock(ctx, ctx.actor, car);
  if (car.lockState === target) return car;
  const reply = await device.send(ctx.em, {
    carId: car.id,
    command: target === 'Locked' ? 'Lock' : 'Unlock',
    requestedById: ctx.actor.id,
    issuedDateUtc: ctx.clock.now(),
  });
  car.lockState = reply.lockState;
  car.lockStateChangedDateUtc = reply.confirmedDateUtc;
  return car;
}
