// An audit entry (CONTRACT §18): who changed what, by which operation, in which request. Never holds a value
// of the change itself, so no secret can reach it.
import { defineEntity, p } from '@mikro-orm/core';
import { carShareIdProperty } from '../db/car-share-condition.js';

/** Who made a change (CONTRACT §27): an operator, an application, the admin command line, or the platform (§22). */
export const auditActorTypes = ['UserAccount', 'ClientApplication', 'Cli', 'Platform'] as const;
export type AuditActorType = (typeof auditActorTypes)[number];

/** What an administrative change may be about (GraphQL type names; `CarBooking` is REST's Booking). */
export const auditSubjectTypes = [
  'UserAccount',
  'Car',
  'CarBooking',
  'Verification',
  'ClientApplication',
  'WebhookSubscription',
  // The car share itself, suspended or reactivated by the platform (§22).
  'CarShare',
] as const;
export type AuditSubjectType = (typeof auditSubjectTypes)[number];

export const AuditEntrySchema = defineEntity({
  name: 'AuditEntry',
  tableName: 'audit_entry',
  properties: {
    id: p.uuid().primary(),
    carShareId: carShareIdProperty(),
    occurredDateUtc: p.datetime(),
    /** Null for `Cli` and `Platform`, which are no account or application. */
    actorId: p.uuid().nullable(),
    actorType: p.string().$type<AuditActorType>(),
    /** The operation's name, as in GraphQL and the permission table (`rotateClientApplicationSecret`). */
    action: p.string().length(64),
    subjectType: p.string().$type<AuditSubjectType>(),
    subjectId: p.uuid(),
    requestId: p.string().length(128).nullable(),
  },
});
export class AuditEntry extends AuditEntrySchema.class {}
AuditEntrySchema.setClass(AuditEntry);
