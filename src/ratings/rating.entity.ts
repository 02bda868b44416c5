// The Rating aggregate of a user or a car: count and average of the feedback about it.
import { defineEntity, p } from '@mikro-orm/core';
import { carShareIdProperty } from '../db/car-share-condition.js';

export const subjectTypes = ['UserAccount', 'Car'] as const;
export type SubjectType = (typeof subjectTypes)[number];

export const RatingSchema = defineEntity({
  name: 'Rating',
  tableName: 'rating',
  properties: {
    id: p.uuid().primary(),
    carShareId: carShareIdProperty(),
    subjectType: p.string().$type<SubjectType>(),
    subjectId: p.uuid(),
    count: p.integer(),
    /** One decimal; null while count is 0. */
    average: p.decimal('number').precision(2).scale(1).nullable(),
    createdDateUtc: p.datetime(),
    lastModifiedDateUtc: p.datetime(),
  },
  uniques: [{ properties: ['subjectType', 'subjectId'] }],
});
export class Rating extends RatingSchema.class {}
RatingSchema.setClass(Rating);
