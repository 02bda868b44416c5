// Feedback seeded through the real createFeedback command, with booking facts standing in for a booking
// (bookings are another subdomain).
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../src/access/actor.js';
import { createFeedback, type FeedbackInput } from '../../src/feedback/feedback.commands.js';
import type { Feedback } from '../../src/feedback/feedback.entity.js';
import type { BookingFacts } from '../../src/feedback/feedback.rules.js';
import type { Harness } from '../support/harness.js';
import { scoped } from '../support/scope.js';

/** A finished booking of a car between two users; `state` and the rest may be overridden. */
export function bookingFacts(
  borrowerId: string,
  ownerId: string,
  overrides: Partial<BookingFacts> = {},
): BookingFacts {
  return { id: randomUUID(), state: 'Returned', borrowerId, ownerId, carId: randomUUID(), ...overrides };
}

/** Runs createFeedback in its own committed transaction, as a mutation would. */
export async function leaveFeedback(
  h: Harness,
  actor: Actor,
  booking: BookingFacts,
  input: FeedbackInput,
): Promise<Feedback> {
  return scoped(h.orm).transactional((em) => createFeedback({ em, actor, clock: h.clock }, booking, input));
}

/** The subject's rating row as stored (absent until the first feedback). */
export async function ratingRow(
  h: Harness,
  subjectType: 'UserAccount' | 'Car',
  subjectId: string,
): Promise<{ count: number; average: string | null } | undefined> {
  const rows = await h.orm.em
    .fork()
    .getConnection()
    .execute<{ count: number; average: string | null }[]>(
      'select count, average from rating where subject_type = ? and subject_id = ?',
      [subjectType, subjectId],
    );
  return rows[0];
}
