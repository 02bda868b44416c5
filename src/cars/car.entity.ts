// A car a user shares: its details, listing status and lock state. Nested contract objects (LicensePlate,
// HomeLocation, HourlyRate) are flat columns here so each can be filtered, sorted and indexed.
import { defineEntity, p } from '@mikro-orm/core';
import { carShareIdProperty } from '../db/car-share-condition.js';

export const transmissions = ['Automatic', 'Manual'] as const;
export type Transmission = (typeof transmissions)[number];

export const carStatuses = ['Draft', 'Listed', 'Unlisted'] as const;
export type CarStatus = (typeof carStatuses)[number];

export const lockStates = ['Locked', 'Unlocked'] as const;
export type LockState = (typeof lockStates)[number];

export const CarSchema = defineEntity({
  name: 'Car',
  tableName: 'car',
  properties: {
    id: p.uuid().primary(),
    carShareId: carShareIdProperty(),
    ownerId: p.uuid(),
    make: p.string().length(50),
    model: p.string().length(50),
    year: p.integer(),
    color: p.string().length(50).nullable(),
    transmission: p.string().$type<Transmission>(),
    seats: p.integer(),
    description: p.text().nullable(),
    licensePlateJurisdiction: p.string().length(100),
    licensePlateNumber: p.string().length(20),
    homeAddress: p.string().length(500),
    homeLatitude: p.double().$type<number>().runtimeType('number'),
    homeLongitude: p.double().$type<number>().runtimeType('number'),
    /** A decimal string (`12.50`), never a float, so no cent is lost. */
    hourlyRateAmount: p.decimal('string').precision(12).scale(2),
    hourlyRateCurrency: p.string().length(3),
    autoApprove: p.boolean(),
    minimumBookingMinutes: p.integer(),
    maximumBookingMinutes: p.integer(),
    status: p.string().$type<CarStatus>(),
    /** Changed by lock/unlock, which belong to bookings (who may lock depends on the InUse booking). */
    lockState: p.string().$type<LockState>(),
    lockStateChangedDateUtc: p.datetime().nullable(),
    createdDateUtc: p.datetime(),
    lastModifiedDateUtc: p.datetime(),
  },
});
export class Car extends CarSchema.class {}
CarSchema.setClass(Car);
