// Who may do what with feedback (CONTRACT §5, §7): readers with `feedback:read`; the author changes it;
// the author or ops delete it.
import { type Actor, actorClass, hasScope, isSelf } from '../access/actor.js';
import type { SubjectType } from '../ratings/rating.entity.js';
import { forbidden, notFound } from '../shared/errors.js';

/** What createFeedback needs of the booking; the bookings subdomain passes it in, so feedback never imports it. */
export interface BookingFacts {
  id: string;
  state: string;
  borrowerId: string;
  ownerId: string;
  carId: string;
}

export interface FeedbackSubject {
  subjectType: SubjectType;
  subjectId: string;
  /** The user the subject belongs to: the borrower, or the car's owner. */
  subjectUserId: string;
}

/** Feedback may be left once the car is back. */
export const feedbackStates = ['Returned', 'Completed'] as const;

/** The borrower rates the car, the owner rates the borrower; anyone else is no party to it. */
export function subjectFor(actor: Actor, b: BookingFacts): FeedbackSubject | null {
  if (isSelf(actor, b.borrowerId))
    return { subjectType: 'Car', subjectId: b.carId, subjectUserId: b.ownerId };
  if (isSelf(actor, b.ownerId))
    return { subjectType: 'UserAccount', subjectId: b.borrowerId, subjectUserId: b.borrowerId };
  return null;
}

/** Feedback is public to its readers: ops, and anyone holding `feedback:read`. */
export function canReadFeedback(actor: Actor): boolean {
  const cls = actorClass(actor);
  if (cls === 'anonymous') return false;
  return cls === 'ops' || hasScope(actor, 'feedback:read');
}

/**
 * The refusal for someone who is not the author (CONTRACT §6, §10): a caller who can read the feedback
 * learns it exists (403); one who cannot is told it does not (404).
 */
export function refuseNonAuthor(actor: Actor, action: string) {
  return canReadFeedback(actor)
    ? forbidden(`Only the author may ${action} this feedback`)
    : notFound('Feedback');
}
