// Suspending and reactivating a car share (CONTRACT §22, §23), for the platform API and the admin command line. Each
// is one transaction: the state check, the row, an entry in the car share's own audit trail, on reactivation the
// shift of its webhook schedule by the time it was suspended, and the NOTIFY that tells every instance with the
// commit. The command returns once this process's registries answer by the new state (other instances follow
// their NOTIFY), so a request after it is refused, or served, accordingly.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import { deploymentEm } from '../db/scope.js';
import { DomainError, notFound } from '../shared/errors.js';
import { isUuid, newId } from '../shared/ids.js';
import { Check } from '../shared/validation.js';
import { enterScope } from './car-share.commands.js';
import type { CarShare } from './car-share.js';
import type { CarShareRow } from './car-share.row.js';
import { carShareChanged, fromRow, refreshRegistriesOn } from './registry.js';

/** Who changes a car share's state, as its own audit trail names them: the platform API, or the console. */
export interface PlatformAuditBy {
  actorType: 'Platform' | 'Cli';
}

/** SuspendedReason's longest (§19). */
const REASON_MAX = 1000;

type Action = 'suspendCarShare' | 'reactivateCarShare';

export async function suspendCarShare(
  orm: Orm,
  id: string,
  reason: string | null,
  by: PlatformAuditBy,
  now: Date,
): Promise<CarShare> {
  const check = new Check();
  const text = reason?.trim() || null;
  if (text !== null) check.length('reason', text, 1, REASON_MAX);
  check.throwIfAny();
  return change(orm, id, 'suspendCarShare', by, now, async (em, row) => {
    // §19: the default car share serves the platform itself; it is never suspended (as it is never deleted).
    if (row.is_default)
      throw new DomainError('Conflict', 'The default car share cannot be suspended', {
        meta: { Reason: 'DefaultCarShare' },
      });
    if (row.status !== 'Active')
      throw new DomainError('InvalidStateTransition', 'The car share is already suspended', {
        meta: { State: row.status },
      });
    return updated(
      em,
      `update "car_share" set "status" = 'Suspended', "suspended_reason" = ?, "suspended_date_utc" = ?,
          "last_modified_date_utc" = ?
        where "id" = ? returning *`,
      [text, now, now, id],
    );
  });
}

export async function reactivateCarShare(
  orm: Orm,
  id: string,
  by: PlatformAuditBy,
  now: Date,
): Promise<CarShare> {
  return change(orm, id, 'reactivateCarShare', by, now, async (em, row) => {
    if (row.status !== 'Suspended' || row.suspended_date_utc === null)
      throw new DomainError('InvalidStateTransition', 'The car share is not suspended', {
        meta: { State: row.status },
      });
    const since = new Date(row.suspended_date_utc);
    const active = await updated(
      em,
      `update "car_share" set "status" = 'Active', "suspended_reason" = null, "suspended_date_utc" = null,
          "last_modified_date_utc" = ?
        where "id" = ? returning *`,
      [now, id],
    );
    await enterScope(em, id, true);
    await resumeWebhookSchedule(em, id, since, now);
    return active;
  });
}

/**
 * §23: suspended time counts toward neither a delivery's schedule nor a subscription's 5-day Failing rule. A retry
 * that was still waiting when the car share was suspended waits, after reactivation, what it had left; a delivery
 * due by then (a first attempt of an event raised meanwhile, or one already due) stays due and is claimed at the
 * next look. A failing streak's start moves on by the suspended time. The schedule's exhaustion counts attempts, and
 * none was made meanwhile.
 */
async function resumeWebhookSchedule(em: EntityManager, id: string, since: Date, now: Date): Promise<void> {
  const pausedMs = Math.max(0, now.getTime() - since.getTime());
  if (pausedMs === 0) return;
  const paused = `(? * interval '1 millisecond')`;
  await run(
    em,
    `update "webhook_delivery" set "next_attempt_date_utc" = "next_attempt_date_utc" + ${paused}
      where "car_share_id" = ? and "status" = 'Pending' and "attempt_count" > 0 and not "manual"
        and "next_attempt_date_utc" > ?`,
    [pausedMs, id, since],
  );
  await run(
    em,
    `update "webhook_subscription" set "failing_since_date_utc" = "failing_since_date_utc" + ${paused}
      where "car_share_id" = ? and "failing_since_date_utc" is not null and "failing_since_date_utc" <= ?`,
    [pausedMs, id, now],
  );
}

/**
 * The frame both commands share: finds and locks the row (as the DATABASE_URL user, with the setting naming the car
 * share so row-level security lets it through), runs `apply`, writes the audit entry in the car share's scope as the
 * app role, announces the change, commits, then refreshes this process's registries.
 */
async function change(
  orm: Orm,
  id: string,
  action: Action,
  by: PlatformAuditBy,
  now: Date,
  apply: (em: EntityManager, row: CarShareRow) => Promise<CarShare>,
): Promise<CarShare> {
  if (!isUuid(id)) throw notFound('Car share');
  const carShare = await deploymentEm(orm).transactional(async (tem) => {
    const em = tem as EntityManager;
    await enterScope(em, id, false);
    const [row] = await em.getConnection().execute<CarShareRow[]>(
      // A deleted car share, its rows not yet purged, is no car share (CONTRACT §23).
      'select * from "car_share" where "id" = ? and "deleted_date_utc" is null for update',
      [id],
      'all',
      em.getTransactionContext(),
    );
    if (!row) throw notFound('Car share');
    const changed = await apply(em, row);
    await enterScope(em, id, true);
    await run(
      em,
      `insert into "audit_entry" ("car_share_id", "id", "occurred_date_utc", "actor_id", "actor_type", "action",
          "subject_type", "subject_id", "request_id")
        values (?, ?, ?, null, ?, ?, 'CarShare', ?, null)`,
      [id, newId(), now, by.actorType, action, id],
    );
    await carShareChanged(em, id);
    return changed;
  });
  await refreshRegistriesOn(orm);
  return carShare;
}

/** One statement on the transaction of `em`. */
async function run(em: EntityManager, sql: string, params: unknown[]): Promise<void> {
  await em.getConnection().execute(sql, params, 'run', em.getTransactionContext());
}

/** The car share's row changed by `update … returning *`, as the registry holds it (never the default one). */
async function updated(em: EntityManager, sql: string, params: unknown[]): Promise<CarShare> {
  const [row] = await em
    .getConnection()
    .execute<CarShareRow[]>(sql, params, 'all', em.getTransactionContext());
  if (!row) throw new Error('the car share row went away under its lock');
  return fromRow(row, row.base_url);
}
