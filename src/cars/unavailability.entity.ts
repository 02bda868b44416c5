// Time the owner declared the car cannot be booked (maintenance, offline), a half-open [start, end).
import { defineEntity, p } from '@mikro-orm/core';
import { carShareIdProperty } from '../db/car-share-condition.js';

export const unavailabilityReasons = ['Maintenance', 'Offline', 'Other'] as const;
export type UnavailabilityReason = (typeof unavailabilityReasons)[number];

export const UnavailabilitySchema = defineEntity({
  name: 'Unavailability',
  tableName: 'unavailability',
  properties: {
    id: p.uuid().primary(),
    carShareId: carShareIdProperty(),
    carId: p.uuid(),
    startDateUtc: p.datetime(),
    endDateUtc: p.datetime(),
    reason: p.string().$type<UnavailabilityReason>(),
    note: p.text().nullable(),
    createdDateUtc: p.datetime(),
    lastModifiedDateUtc: p.datetime(),
  },
});
export class Unavailability extends UnavailabilitySchema.class {}
UnavailabilitySchema.setClass(Unavailability);
