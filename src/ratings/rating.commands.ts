// Keeps a subject's Rating right: called by feedback commands inside their transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import { carShareIdOf } from '../db/car-share-condition.js';
import type { SubjectType } from './rating.entity.js';
import { ratingId } from './rating.loaders.js';

/**
 * Recomputes count and average from the feedback rows. The rating row is locked first, so concurrent
 * feedback about one subject is serialised and the aggregate never misses a committed row.
 */
export async function recomputeRating(
  em: EntityManager,
  subjectType: SubjectType,
  subjectId: string,
  now: Date,
): Promise<void> {
  const conn = em.getConnection();
  const tx = em.getTransactionContext();
  const carShareId = carShareIdOf(em);
  await conn.execute(
    `insert into rating (id, car_share_id, subject_type, subject_id, count, average, created_date_utc,
       last_modified_date_utc)
     values (?, ?, ?, ?, 0, null, ?, ?) on conflict (car_share_id, subject_type, subject_id) do nothing`,
    [ratingId(subjectType, subjectId), carShareId, subjectType, subjectId, now, now],
    'run',
    tx,
  );
  await conn.execute(
    'select id from rating where car_share_id = ? and subject_type = ? and subject_id = ? for update',
    [carShareId, subjectType, subjectId],
    'all',
    tx,
  );
  await conn.execute(
    `update rating r set count = a.n, average = a.avg, last_modified_date_utc = ?
       from (select count(*)::int as n, round(avg(rating)::numeric, 1) as avg
               from feedback where car_share_id = ? and subject_type = ? and subject_id = ?) a
      where r.car_share_id = ? and r.subject_type = ? and r.subject_id = ?`,
    [now, carShareId, subjectType, subjectId, carShareId, subjectType, subjectId],
    'run',
    tx,
  );
}
