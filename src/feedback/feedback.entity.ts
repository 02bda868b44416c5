// Feedback one party of a booking leaves about the other (the borrower about the car, the owner about the
// borrower): a 1–5 rating and an optional comment, at most one per (booking, author).
import { defineEntity, p } from '@mikro-orm/core';
import { carShareIdProperty } from '../db/car-share-condition.js';
import type { SubjectType } from '../ratings/rating.entity.js';

export const FeedbackSchema = defineEntity({
  name: 'Feedback',
  tableName: 'feedback',
  properties: {
    id: p.uuid().primary(),
    carShareId: carShareIdProperty(),
    carBookingId: p.uuid(),
    authorId: p.uuid(),
    subjectType: p.string().$type<SubjectType>(),
    subjectId: p.uuid(),
    /**
     * The user the subject belongs to (the borrower, or the car's owner): the event audience besides the
     * author, stored so feedback never has to import cars.
     */
    subjectUserId: p.uuid(),
    rating: p.integer(),
    comment: p.text().nullable(),
    createdDateUtc: p.datetime(),
    lastModifiedDateUtc: p.datetime(),
  },
  uniques: [{ properties: ['carBookingId', 'authorId'] }],
});
export class Feedback extends FeedbackSchema.class {}
FeedbackSchema.setClass(Feedback);
