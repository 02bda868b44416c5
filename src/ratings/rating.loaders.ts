// Ratings by subject, batched. A subject nobody has rated yet reads as a zero-count rating whose id is
// derived from the subject, so the id stays the same once the first feedback creates the row.
import { createHash } from 'node:crypto';
import { carShareIdOf } from '../db/car-share-condition.js';
import { placeholders, readRows } from '../db/rows.js';
import type { Read } from '../db/views.js';
import { byKey, defineLoader } from '../graphql/loaders.js';
import { boundedMemo } from '../shared/memo.js';
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

/**
 * Ids of unrated subjects, remembered once derived: a hash per embedded unrated subject was a visible share of a
 * car's answer (test/bench, S2), and the same subjects are asked for again and again.
 */
const derivedId = boundedMemo((name) => {
  const h = createHash('sha1').update(name).digest('hex');
  const variant = ((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
});

/** A stable UUID for a subject's rating (name-based, like UUID v5). */
export const ratingId = (subjectType: SubjectType, subjectId: string): string =>
  derivedId(`rating:${subjectType}:${subjectId}`);

const key = (s: SubjectRef): string => `${s.subjectType}:${s.subjectId}`;

/**
 * One `subject_id in (...)` per subject type rather than one condition per subject: the same rows, but
 * PostgreSQL one index scan per type and a short statement to build (test/bench, S1).
 */
export function subjectsWhere(refs: readonly SubjectRef[]): { sql: string; params: string[] } {
  const ids = new Map<SubjectType, string[]>();
  for (const r of refs) {
    const list = ids.get(r.subjectType);
    if (list) list.push(r.subjectId);
    else ids.set(r.subjectType, [r.subjectId]);
  }
  const parts = [...ids].map(
    ([, list]) => `(subject_type = ? and subject_id in (${placeholders(list.length)}))`,
  );
  return { sql: parts.join(' or '), params: [...ids].flatMap(([type, list]) => [type, ...list]) };
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

export const ratingBySubject = defineLoader<SubjectRef, Read<RatingView>>(
  'ratingBySubject',
  async (em, refs) => {
    const where = subjectsWhere(refs);
    const rows = await readRows(
      em,
      Rating,
      `select * from rating where car_share_id = ? and (${where.sql})`,
      [carShareIdOf(em), ...where.params],
    );
    const found = byKey(refs.map(key), rows, key, undefined);
    return refs.map((r, i) => (found[i] as RatingView | undefined) ?? emptyRating(r));
  },
  key,
);
