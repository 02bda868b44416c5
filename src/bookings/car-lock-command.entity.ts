// A lock or unlock command sent to a car, as the default (recording) telematics adapter keeps it.
import { defineEntity, p } from '@mikro-orm/core';
import type { LockState } from '../cars/car.entity.js';
import { carShareIdProperty } from '../db/car-share-condition.js';

export const lockCommands = ['Lock', 'Unlock'] as const;
export type LockCommandName = (typeof lockCommands)[number];

export const CarLockCommandSchema = defineEntity({
  name: 'CarLockCommand',
  tableName: 'car_lock_command',
  properties: {
    id: p.uuid().primary(),
    carShareId: carShareIdProperty(),
    carId: p.uuid(),
    command: p.string().$type<LockCommandName>(),
    /** Who asked: the borrower, the owner or an operator. */
    requestedById: p.uuid().nullable(),
    issuedDateUtc: p.datetime(),
    /** What the unit reported back; the recording adapter reports the commanded state at once. */
    resultLockState: p.string().$type<LockState>(),
    confirmedDateUtc: p.datetime(),
  },
});
export class CarLockCommand extends CarLockCommandSchema.class {}
CarLockCommandSchema.setClass(CarLockCommand);
