// The closed list of domain events (CONTRACT §8) and their payload builders: the payload is the webhook body.

export const eventNames = [
  'useraccount_create',
  'profile_update',
  'verification_update',
  'feedback_update',
  'feedback_delete',
  'carbooking_approve',
  'carbooking_cancel',
  'carbooking_use',
  'carbooking_extend',
  'carbooking_return',
  'carbooking_complete',
] as const;
export type EventName = (typeof eventNames)[number];
export const isEventName = (s: string): s is EventName => (eventNames as readonly string[]).includes(s);

const iso = (d: Date): string => d.toISOString();

/** What each event carries besides `Name` and `OccurredDateUtc`. */
export interface EventFields {
  useraccount_create: { id: string; createdDateUtc: Date };
  profile_update: { id: string; userId: string; changedFields: string[] };
  verification_update: { id: string; subjectType: string; subjectId: string; kind: string; status: string };
  feedback_update: {
    id: string;
    carBookingId: string;
    subjectType: string;
    subjectId: string;
    rating: number;
  };
  feedback_delete: { id: string; carBookingId: string; subjectType: string; subjectId: string };
  carbooking_approve: BookingFields;
  carbooking_cancel: BookingFields;
  carbooking_use: BookingFields;
  carbooking_extend: BookingFields;
  carbooking_return: BookingFields;
  carbooking_complete: BookingFields;
}
export interface BookingFields {
  id: string;
  reference: string;
  carId: string;
  borrowerId: string;
  state: string;
  startDateUtc: Date;
  endDateUtc: Date;
}

export type Payload = Record<string, unknown> & { Name: EventName; OccurredDateUtc: string };

const booking = (f: BookingFields) => ({
  Id: f.id,
  Reference: f.reference,
  CarId: f.carId,
  BorrowerId: f.borrowerId,
  State: f.state,
  StartDateUtc: iso(f.startDateUtc),
  EndDateUtc: iso(f.endDateUtc),
});

const bodies = {
  useraccount_create: (f) => ({ Id: f.id, CreatedDateUtc: iso(f.createdDateUtc) }),
  profile_update: (f) => ({ Id: f.id, UserId: f.userId, ChangedFields: f.changedFields }),
  verification_update: (f) => ({
    Id: f.id,
    SubjectType: f.subjectType,
    SubjectId: f.subjectId,
    Kind: f.kind,
    Status: f.status,
  }),
  feedback_update: (f) => ({
    Id: f.id,
    CarBookingId: f.carBookingId,
    SubjectType: f.subjectType,
    SubjectId: f.subjectId,
    Rating: f.rating,
  }),
  feedback_delete: (f) => ({
    Id: f.id,
    CarBookingId: f.carBookingId,
    SubjectType: f.subjectType,
    SubjectId: f.subjectId,
  }),
  carbooking_approve: booking,
  carbooking_cancel: booking,
  carbooking_use: booking,
  carbooking_extend: booking,
  carbooking_return: booking,
  carbooking_complete: booking,
} satisfies { [E in EventName]: (f: EventFields[E]) => Record<string, unknown> };

export function buildPayload<E extends EventName>(name: E, fields: EventFields[E], occurred: Date): Payload {
  const body = (bodies[name] as (f: EventFields[E]) => Record<string, unknown>)(fields);
  return { Name: name, OccurredDateUtc: iso(occurred), ...body };
}
