// A verification of a user or a car: one record per (subject, kind), moved through its states by evidence
// and decisions.
import { defineEntity, p } from '@mikro-orm/core';
import { carShareIdProperty } from '../db/car-share-condition.js';
import type { SubjectType } from '../ratings/rating.entity.js';

export const verificationKinds = [
  'Email',
  'PhoneNumber',
  'DriversLicense',
  'LicensePlate',
  'RoadWorthiness',
  'OperatorApproval',
] as const;
export type VerificationKind = (typeof verificationKinds)[number];

export const verificationStatuses = ['Unverified', 'Pending', 'Verified', 'Rejected', 'Expired'] as const;
export type VerificationStatus = (typeof verificationStatuses)[number];

/** The kinds created with each subject; all must be Verified for a borrower or a car to count as verified. */
export const requiredKinds = {
  UserAccount: ['Email', 'PhoneNumber', 'DriversLicense'],
  Car: ['LicensePlate', 'RoadWorthiness'],
} as const satisfies Record<SubjectType, readonly VerificationKind[]>;

export const VerificationSchema = defineEntity({
  name: 'Verification',
  tableName: 'verification',
  properties: {
    id: p.uuid().primary(),
    carShareId: carShareIdProperty(),
    subjectType: p.string().$type<SubjectType>(),
    subjectId: p.uuid(),
    /** The user the subject belongs to: the user themself, or the car's owner. Decides who may submit. */
    subjectUserId: p.uuid(),
    kind: p.string().$type<VerificationKind>(),
    status: p.string().$type<VerificationStatus>(),
    evidence: p.json<Record<string, unknown>>().nullable(),
    expiresDateUtc: p.datetime().nullable(),
    decidedDateUtc: p.datetime().nullable(),
    decidedById: p.uuid().nullable(),
    reason: p.text().nullable(),
    createdDateUtc: p.datetime(),
    lastModifiedDateUtc: p.datetime(),
  },
  uniques: [{ properties: ['subjectType', 'subjectId', 'kind'] }],
});
export class Verification extends VerificationSchema.class {}
VerificationSchema.setClass(Verification);
