// Reading feedback: public to every caller the permission gate lets read it (`feedback:read`, ops).
import { searchRows, whereEquals } from '../db/search.js';
import type { Context } from '../graphql/context.js';
import { notFound } from '../shared/errors.js';
import { type Page, type PageArgs, pageRequest } from '../shared/pagination.js';
import { Feedback } from './feedback.entity.js';
import { feedbackById } from './feedback.loaders.js';

const columns = {
  createdDateUtc: 'created_date_utc',
  lastModifiedDateUtc: 'last_modified_date_utc',
  carBookingId: 'car_booking_id',
  authorId: 'author_id',
  subjectType: 'subject_type',
  subjectId: 'subject_id',
  rating: 'rating',
  comment: 'comment',
} as const;

export interface FeedbackFilter extends PageArgs {
  subjectType?: string | null;
  subjectId?: string | null;
}

export async function searchFeedbacks(ctx: Context, args: FeedbackFilter): Promise<Page<Feedback>> {
  const page = pageRequest(args, { fields: Object.keys(columns), defaultSort: '-createdDateUtc' });
  const where: string[] = [];
  const params: unknown[] = [];
  whereEquals(where, params, args, { subjectType: 'subject_type', subjectId: 'subject_id' });
  const { rows, total } = await searchRows<Record<string, unknown>>(
    ctx.em,
    { table: 'feedback', where, params, columns },
    page,
  );
  return { ...page, total, nodes: rows.map((r) => ctx.em.map(Feedback, r)) };
}

export async function getFeedback(ctx: Context, id: string): Promise<Feedback> {
  const f = await feedbackById(ctx).load(id);
  if (!f) throw notFound('Feedback');
  return f;
}
