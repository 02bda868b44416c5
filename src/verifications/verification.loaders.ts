// Verifications by id and by subject, batched per request, as plain rows (src/db/rows.ts): for reading only.
import { carShareIdOf } from '../db/car-share-condition.js';
import { readRows } from '../db/rows.js';
import type { Read } from '../db/views.js';
import { defineLoader, groupByKey, rowsByUniqueKey } from '../graphql/loaders.js';
import type { SubjectType } from '../ratings/rating.entity.js';
import { subjectsWhere } from '../ratings/rating.loaders.js';
import { requiredKinds, Verification } from './verification.entity.js';

export interface SubjectRef {
  subjectType: SubjectType;
  subjectId: string;
}
const key = (s: SubjectRef): string => `${s.subjectType}:${s.subjectId}`;

export const verificationById = rowsByUniqueKey(
  'verificationById',
  Verification,
  'verification',
  'id',
  (v) => v.id,
);

export const verificationsBySubject = defineLoader<SubjectRef, Read<Verification>[]>(
  'verificationsBySubject',
  async (em, refs) => {
    const where = subjectsWhere(refs);
    const rows = await readRows(
      em,
      Verification,
      `select * from verification where car_share_id = ? and (${where.sql}) order by kind asc`,
      [carShareIdOf(em), ...where.params],
    );
    return groupByKey(refs.map(key), rows, key);
  },
  key,
);

/** Whether every kind required of the subject is Verified: at once when its verifications were primed. */
export function isSubjectVerified(
  ctx: Parameters<typeof verificationsBySubject>[0],
  ref: SubjectRef,
): boolean | Promise<boolean> {
  const verified = (list: readonly Read<Verification>[]) =>
    requiredKinds[ref.subjectType].every((k) => list.some((v) => v.kind === k && v.status === 'Verified'));
  const list = verificationsBySubject(ctx).known(ref);
  return list instanceof Promise ? list.then(verified) : verified(list);
}
