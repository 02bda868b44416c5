// Ratings by subject, batched. A subject nobody has rated yet reads as a zero-count rating whose id is
// derived from the subject, so the id stays the same once the first feedback creates the row.
import { createHash } from 'node:crypto';
import { byKey, defineLoader } from '../graphql/loaders.js';
import { Rating, type SubjectType } from './rating.entity.js';

export interface RatingView {
  id: string;
  subjectType: SubjectType;
  subjectId: string;
  count: number;
  average: number | null;
  createdDateUtc: Date | null;
  lastModifiedDateUtc: Date | null;
}

export interface SubjectRef {
  subjectType: SubjectType;
  subjectId: string;
}

/** A stable UUID for a subject's rating (name-based, like UUID v5). */
export function ratingId(subjectType: SubjectType, subjectId: string): string {
  const h = createHash('sha1').update(`rating:${subjectType}:${subjectId}`).digest('hex');
  const variant = ((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const key = (s: SubjectRef): string => `${s.subjectType}:${s.subjectId}`;

/**
 * One `subject_id in (...)` per subject type rather than one condition per subject: the same rows, but a page of
 * 100 subjects costs MikroORM far less to build (test/bench, S1) and PostgreSQL one index scan per type.
 */
export function subjectsWhere(refs: readonly SubjectRef[]) {
  const ids = new Map<SubjectType, string[]>();
  for (const r of refs) {
    const list = ids.get(r.subjectType);
    if (list) list.push(r.subjectId);
    else ids.set(r.subjectType, [r.subjectId]);
  }
  return {
    $or: [...ids].map(([subjectType, subjectId]) => ({ subjectType, subjectId: { $in: subjectId } })),
  };
}

export const emptyRating = (s: SubjectRef): RatingView => ({
  id: ratingId(s.subjectType, s.subjectId),
  subjectType: s.subjectType,
  subjectId: s.subjectId,
  count: 0,
  average: null,
  createdDateUtc: null,
  lastModifiedDateUtc: null,
});

export const ratingBySubject = defineLoader<SubjectRef, RatingView>(
  'ratingBySubject',
  async (em, refs) => {
    const rows = await em.find(Rating, subjectsWhere(refs));
    const found = byKey(refs.map(key), rows, key, undefined);
    return refs.map((r, i) => (found[i] as RatingView | undefined) ?? emptyRating(r));
  },
  key,
);
