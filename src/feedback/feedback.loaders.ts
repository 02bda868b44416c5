// Feedback by id and by booking, batched per request (a booking embeds its Feedbacks).
import { byKey, defineLoader, groupByKey } from '../graphql/loaders.js';
import { Feedback } from './feedback.entity.js';

export const feedbackById = defineLoader<string, Feedback | null>('feedbackById', async (em, ids) =>
  byKey(ids, await em.find(Feedback, { id: { $in: [...ids] } }), (f) => f.id, null),
);

export const feedbacksByBooking = defineLoader<string, Feedback[]>('feedbacksByBooking', async (em, ids) =>
  groupByKey(
    ids,
    await em.find(
      Feedback,
      { carBookingId: { $in: [...ids] } },
      { orderBy: { createdDateUtc: 'asc', id: 'asc' } },
    ),
    (f) => f.carBookingId,
  ),
);
