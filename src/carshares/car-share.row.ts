// A car share's row as the platform reads and changes it (CONTRACT §22, §23): as the DATABASE_URL user, in a
// transaction whose setting names the car share, so the row is reachable whatever that user's row-level security.
import type { EntityManager } from '@mikro-orm/postgresql';
import { CAR_SHARE_SETTING } from '../db/scope.js';
import { DomainError, notFound } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import type { CarShareLimits, CarShareStatus } from './car-share.js';

export interface CarShareRow {
  id: string;
  base_url: string;
  host: string;
  name: string;
  status: CarShareStatus;
  suspended_reason: string | null;
  suspended_date_utc: Date | null;
  is_default: boolean;
  limits: CarShareLimits | null;
  created_date_utc: Date;
  last_modified_date_utc: Date;
}

export const CAR_SHARE_COLUMNS = `id, base_url, host, name, status, suspended_reason, suspended_date_utc, is_default,
  limits, created_date_utc, last_modified_date_utc`;

/** One statement in `em`'s transaction. */
export const runIn = <T>(em: EntityManager, sql: string, params: readonly unknown[] = []): Promise<T[]> =>
  em.getConnection().execute<T[]>(sql, [...params], 'all', em.getTransactionContext());

/**
 * Locks a car share that was not deleted and names it in the transaction's setting; a deleted or unknown one is
 * NotFound (CONTRACT §23: a deleted car share's Id is unknown to the platform).
 */
export async function lockCarShare(em: EntityManager, id: string): Promise<CarShareRow> {
  if (!isUuid(id)) throw notFound('The car share');
  await runIn(em, `select set_config('${CAR_SHARE_SETTING}', ?, true)`, [id.toLowerCase()]);
  const [row] = await runIn<CarShareRow>(
    em,
    `select ${CAR_SHARE_COLUMNS} from car_share where id = ? and deleted_date_utc is null for update`,
    [id.toLowerCase()],
  );
  if (!row) throw notFound('The car share');
  return row;
}

/** The default car share is neither suspended nor deleted (CONTRACT §19): checked before any state rule. */
export function refuseDefault(row: CarShareRow, verb: string): void {
  if (row.is_default)
    throw new DomainError('Conflict', `The default car share cannot be ${verb}`, {
      meta: { Reason: 'DefaultCarShare' },
    });
}

/** Writes an entry in the car share's own audit trail, naming the platform or the command line (CONTRACT §27). */
export async function auditInCarShare(
  em: EntityManager,
  e: {
    carShareId: string;
    actorType: 'Platform' | 'Cli';
    action: string;
    subjectType: string;
    subjectId: string;
    requestId?: string | null;
    now: Date;
  },
): Promise<void> {
  await runIn(
    em,
    `insert into audit_entry (id, car_share_id, occurred_date_utc, actor_id, actor_type, action, subject_type,
       subject_id, request_id) values (gen_random_uuid(), ?, ?, null, ?, ?, ?, ?, ?)`,
    [
      e.carShareId,
      e.now,
      e.actorType,
      e.action,
      e.subjectType,
      e.subjectId,
      e.actorType === 'Cli' ? null : (e.requestId ?? null),
    ],
  );
}

/**
 * Back from a car share's scope to the DATABASE_URL user for the rest of the transaction (the platform's own table
 * after work inside the car share): the session user may always take its own role again.
 */
export async function leaveCarShareRole(em: EntityManager): Promise<void> {
  await runIn(em, `select set_config('role', session_user::text, true)`);
}
