// The port to a car's telematics unit, so a real one can be plugged in later (CONTRACT §7 lock/unlock). The
// default adapter has no hardware behind it: it records the command and answers at once with the new state.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { LockState } from '../cars/car.entity.js';
import { newId } from '../shared/ids.js';
import { CarLockCommand, type LockCommandName } from './car-lock-command.entity.js';

export interface LockCommand {
  carId: string;
  command: LockCommandName;
  requestedById: string | null;
  issuedDateUtc: Date;
}

export interface CarLockDevice {
  /** Sends the command (inside the caller's transaction) and tells the state the car reports. */
  send(em: EntityManager, command: LockCommand): Promise<{ lockState: LockState; confirmedDateUtc: Date }>;
}

export const recordingLockDevice: CarLockDevice = {
  async send(em, c) {
    const lockState: LockState = c.command === 'Lock' ? 'Locked' : 'Unlocked';
    em.persist(
      em.create(CarLockCommand, {
        id: newId(),
        carId: c.carId,
        command: c.command,
        requestedById: c.requestedById,
        issuedDateUtc: c.issuedDateUtc,
        resultLockState: lockState,
        confirmedDateUtc: c.issuedDateUtc,
      }),
    );
    return { lockState, confirmedDateUtc: c.issuedDateUtc };
  },
};
