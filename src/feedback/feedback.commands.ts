// The business verbs of feedback: leave it after a booking, change it, delete it. Each change recomputes the
// subject's Rating and records its event in the same transaction.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { actorClass, isSelf } from '../access/actor.js';
import { requireScope } from '../access/permissions.js';
import { recordEvent } from '../events/outbox.js';
import type { CommandContext } from '../graphql/context.js';
import { recomputeRating } from '../ratings/rating.commands.js';
import { DomainError, forbidden, invalidState, notFound, unauthorized } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { Check } from '../shared/validation.js';
import { Feedback } from './feedback.entity.js';
import { type BookingFacts, feedbackStates, refuseNonAuthor, subjectFor } from './feedback.rules.js';

export interface FeedbackInput {
  rating?: number | null;
  comment?: string | null;
}

interface Checked {
  rating?: number;
  comment?: string | null;
}

/** Validates rating (whole number 1–5) and comment (≤1000; blank clears it). `partial` allows leaving either out. */
function checkInput(input: FeedbackInput, partial: boolean): Checked {
  const check = new Check();
  const out: Checked = {};
  if (!partial || input.rating !== undefined) {
    if (check.required('rating', input.rating)) {
      check.integer('rating', input.rating).range('rating', input.rating, 1, 5);
      out.rating = input.rating!;
    }
  }
  if (input.comment !== undefined) {
    if (input.comment !== null && typeof input.comment !== 'string')
      check.add('InvalidFormat', 'comment', 'Comment must be text');
    else {
      const c = input.comment?.trim() ?? '';
      check.length('comment', c, 0, 1000);
      out.comment = c === '' ? null : c;
    }
  }
  check.throwIfAny();
  return out;
}

const alreadyExists = (): DomainError =>
  new DomainError('AlreadyExists', 'You have already left feedback for this booking');

/** Writes the change now, so the rating recomputed next sees it. */
async function flush(em: EntityManager): Promise<void> {
  try {
    await em.flush();
  } catch (e) {
    // Two requests racing past the existence check meet the unique (booking, author) constraint here.
    if (e instanceof UniqueConstraintViolationException || (e as { code?: string }).code === '23505')
      throw alreadyExists();
    throw e;
  }
}

async function afterChange(ctx: CommandContext, f: Feedback, deleted: boolean): Promise<void> {
  await flush(ctx.em);
  await recomputeRating(ctx.em, f.subjectType, f.subjectId, ctx.clock.now());
  const about = {
    id: f.id,
    carBookingId: f.carBookingId,
    subjectType: f.subjectType,
    subjectId: f.subjectId,
  };
  const audience = [f.authorId, f.subjectUserId];
  if (deleted) recordEvent(ctx, 'feedback_delete', about, audience);
  else recordEvent(ctx, 'feedback_update', { ...about, rating: f.rating }, audience);
}

/**
 * A party leaves feedback about the other once the booking is Returned or Completed, once per booking.
 * Called by the bookings subdomain with the booking's facts, inside the mutation's transaction.
 */
export async function createFeedback(
  ctx: CommandContext,
  booking: BookingFacts,
  input: FeedbackInput,
): Promise<Feedback> {
  const subject = subjectFor(ctx.actor, booking);
  if (!subject) {
    const cls = actorClass(ctx.actor);
    if (cls === 'anonymous') throw unauthorized();
    // Ops and client applications may see the booking but never leave feedback on it (CONTRACT §6).
    if (cls !== 'user') throw forbidden('Only the borrower and the owner may leave feedback on a booking');
    throw notFound('Booking');
  }
  requireScope(ctx.actor, 'feedback:write');
  if (!(feedbackStates as readonly string[]).includes(booking.state))
    throw invalidState(booking.state, 'Feedback can be left once the booking is Returned or Completed');
  const values = checkInput(input, false);
  const authorId = ctx.actor.id!;
  if (await ctx.em.findOne(Feedback, { carBookingId: booking.id, authorId })) throw alreadyExists();
  const now = ctx.clock.now();
  const f = ctx.em.create(Feedback, {
    id: newId(),
    carBookingId: booking.id,
    authorId,
    ...subject,
    rating: values.rating!,
    comment: values.comment ?? null,
    createdDateUtc: now,
    lastModifiedDateUtc: now,
  });
  await afterChange(ctx, f, false);
  return f;
}

async function load(ctx: CommandContext, id: string): Promise<Feedback> {
  const f = await ctx.em.findOne(Feedback, { id });
  if (!f) throw notFound('Feedback');
  return f;
}

/** The author changes the rating or the comment; an unchanged input changes nothing and records nothing. */
export async function updateFeedback(
  ctx: CommandContext,
  id: string,
  input: FeedbackInput,
): Promise<Feedback> {
  const f = await load(ctx, id);
  if (!isSelf(ctx.actor, f.authorId)) throw refuseNonAuthor(ctx.actor, 'change');
  const values = checkInput(input, true);
  let changed = false;
  if (values.rating !== undefined && values.rating !== f.rating) {
    f.rating = values.rating;
    changed = true;
  }
  if (values.comment !== undefined && values.comment !== f.comment) {
    f.comment = values.comment;
    changed = true;
  }
  if (!changed) return f;
  f.lastModifiedDateUtc = ctx.clock.now();
  await afterChange(ctx, f, false);
  return f;
}

/** The author, or ops moderating, removes feedback; the subject's rating forgets it. */
export async function deleteFeedback(ctx: CommandContext, id: string): Promise<{ id: string }> {
  const f = await load(ctx, id);
  if (!isSelf(ctx.actor, f.authorId) && actorClass(ctx.actor) !== 'ops')
    throw refuseNonAuthor(ctx.actor, 'delete');
  ctx.em.remove(f);
  await afterChange(ctx, f, true);
  return { id: f.id };
}
