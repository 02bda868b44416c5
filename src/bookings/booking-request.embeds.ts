// The answer to a booking request embeds its car (with the car's rating, verifications and owner's profile and
// rating) and the borrower's profile and rating: the request's statement read them all (booking-request.sql.ts),
// and here they fill the answer's loaders, so answering it sends no further statement.

import { profileByUserId } from '../accounts/account.loaders.js';
import { partnerLoader } from '../accounts/counterparties.js';
import type { Context } from '../graphql/context.js';
import { emptyRating, type RatingView, ratingBySubject, type SubjectRef } from '../ratings/rating.loaders.js';
import { verificationsBySubject } from '../verifications/verification.loaders.js';
import { embedsOfRequest } from './booking-request.commands.js';
import type { CarBooking } from './car-booking.entity.js';
import { bookingCounterparties } from './counterparties.adapter.js';

/** The same per-request loader the accounts module asks (by name), answered by this module's adapter. */
const partners = partnerLoader(bookingCounterparties);

type LoaderContext = Pick<Context, 'em' | 'loaders'>;

/**
 * Fills the loaders with what a just-requested booking's answer embeds; a no-op for any other booking. Called by
 * each field that embeds something (whichever the answer resolves first), priming what is not yet there.
 */
export function primeRequestEmbeds(ctx: LoaderContext, b: CarBooking): boolean {
  const e = embedsOfRequest.get(b);
  if (!e) return false;
  const profiles = profileByUserId(ctx);
  for (const userId of [b.borrowerId, b.ownerId])
    profiles.prime(userId, e.profiles.find((p) => p.userId === userId) ?? null);
  const ratings = ratingBySubject(ctx);
  const subjects: SubjectRef[] = [
    { subjectType: 'Car', subjectId: b.carId },
    { subjectType: 'UserAccount', subjectId: b.borrowerId },
    { subjectType: 'UserAccount', subjectId: b.ownerId },
  ];
  for (const s of subjects)
    ratings.prime(
      s,
      (e.ratings.find((r) => r.subjectType === s.subjectType && r.subjectId === s.subjectId) as
        | RatingView
        | undefined) ?? emptyRating(s),
    );
  verificationsBySubject(ctx).prime({ subjectType: 'Car', subjectId: b.carId }, e.carVerifications);
  // An Approved request makes borrower and owner each other's counterparty (the phone number rule).
  if (b.state === 'Approved')
    partners(ctx)
      .prime({ viewerId: b.borrowerId, subjectId: b.ownerId }, true)
      .prime({ viewerId: b.ownerId, subjectId: b.borrowerId }, true);
  return true;
}
