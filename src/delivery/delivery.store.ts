// The delivery table's SQL for the workers: claim due deliveries under a lease (FOR UPDATE SKIP LOCKED), and
// record attempts, the deliveries' new state and the subscriptions' health in one transaction per batch. Each
// function works on one car share's rows, in the scope of the EntityManager it is given (src/db/scope.ts), and
// every statement names that car share (CONTRACT §25); which car shares have due deliveries is the one read
// across car shares, of their ids and due times only (§24 rule 5).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import { runSql } from '../db/rows.js';
import { deploymentSql } from '../db/scope.js';
import { newId } from '../shared/ids.js';
import type { AttemptTrigger } from '../webhooks/delivery.entity.js';
import { settlePending } from '../webhooks/delivery.settle.js';
import { announceSubscriptionChanged } from '../webhooks/subscription.announce.js';
import type { DisabledReason } from '../webhooks/subscription.entity.js';
import { scopeOf } from '../webhooks/webhook.scope.js';
import type { Outcome } from './outcome.js';
import type { AttemptResult } from './send.js';
import { foldHealth, HEALTH_SQL } from './subscription.health.js';

export interface Claimed {
  id: string;
  /** The car share the delivery belongs to: its outcome is written in that car share's scope. */
  carShareId: string;
  subscriptionId: string;
  event: string;
  body: string;
  attemptCount: number;
  manual: boolean;
  /** The lease holder: only this claim may write the attempt's outcome. */
  token: string;
  eventId: string;
  /** The Request-Id of the request that raised the event (null for timers and tests), for joining logs. */
  eventRequestId: string | null;
}

const run = runSql;

/** A car share with deliveries due and unclaimed (or claimed by a lease that ran out), and the earliest due. */
export interface DueCarShare {
  carShareId: string;
  dueDateUtc: Date;
}

/**
 * The Active car shares with deliveries due now: a read across car shares, as the DATABASE_URL user, of their ids
 * and due times only. A suspended car share's deliveries wait (CONTRACT §23).
 */
export async function carSharesWithDueDeliveries(orm: Orm, now: Date): Promise<DueCarShare[]> {
  const rows = await deploymentSql<{ car_share_id: string; due: Date }>(
    orm,
    `select d."car_share_id", min(d."next_attempt_date_utc") as "due" from "webhook_delivery" d
        where d."status" = 'Pending' and d."next_attempt_date_utc" <= ?
          and (d."locked_until_utc" is null or d."locked_until_utc" <= ?)
          and d."car_share_id" in (select c."id" from "car_share" c where c."status" = 'Active')
        group by d."car_share_id" order by "due"`,
    [now, now],
  );
  return rows.map((r) => ({ carShareId: r.car_share_id, dueDateUtc: new Date(r.due) }));
}

/**
 * Takes up to `limit` due deliveries of the car share `em` is scoped to; a lease that ran out (a crashed worker)
 * makes its delivery due again.
 */
export async function claimDue(
  em: EntityManager,
  opts: { now: Date; leaseMs: number; limit: number },
): Promise<Claimed[]> {
  const carShareId = scopeOf(em);
  const token = newId();
  const rows = await run<Omit<Claimed, 'carShareId'>>(
    em,
    // The due rows are locked once, in a materialised step: as the inner side of a join the locking scan could be
    // run again and skip the rows it had itself just locked, claiming fewer than are free.
    // A suspended car share's deliveries are never claimed (CONTRACT §23), however the worker came to look: a
    // NOTIFY naming it, a lane left from before, another instance that has not heard yet.
    `with due as materialized (select "id" from "webhook_delivery"
        where "car_share_id" = ? and "status" = 'Pending' and "next_attempt_date_utc" <= ?
          and ("locked_until_utc" is null or "locked_until_utc" <= ?)
          and exists (select 1 from "car_share" c where c."id" = ? and c."status" = 'Active')
        order by "next_attempt_date_utc" limit ? for update skip locked)
      update "webhook_delivery" d set "locked_by" = ?, "locked_until_utc" = ?
      from due where d."car_share_id" = ? and d."id" = due."id"
      returning d."id", d."subscription_id" as "subscriptionId", d."event", d."body",
        d."attempt_count" as "attemptCount", d."manual", d."locked_by" as "token", d."event_id" as "eventId",
        (select o."request_id" from "outbox_event" o where o."car_share_id" = ? and o."id" = d."event_id")
          as "eventRequestId"`,
    [
      carShareId,
      opts.now,
      opts.now,
      carShareId,
      opts.limit,
      token,
      new Date(opts.now.getTime() + opts.leaseMs),
      carShareId,
      carShareId,
    ],
  );
  return rows.map((r) => ({ ...r, carShareId }));
}

export async function disableSubscription(
  em: EntityManager,
  subscriptionId: string,
  reason: DisabledReason,
  now: Date,
): Promise<void> {
  const disabled = await run<{ id: string }>(
    em,
    `update "webhook_subscription" set "is_active" = false, "disabled_reason" = ?, "last_modified_date_utc" = ?
      where "car_share_id" = ? and "id" = ? and "is_active" returning "id"`,
    [reason, now, scopeOf(em), subscriptionId],
  );
  for (const s of disabled) await announceSubscriptionChanged(em, s.id);
  await settlePending(em, subscriptionId, 'Skipped', now);
}

export interface AttemptRecord {
  claimed: Claimed;
  result: AttemptResult;
  outcome: Outcome;
  trigger: AttemptTrigger;
  url: string;
  attemptedAt: Date;
  now: Date;
  failingWindowMs: number;
}

/** Writes the attempt and its consequences. Returns false when the lease was lost to another claim. */
/** An attempt's own columns, as both ways of recording attempts write them (one batch, or one transaction). */
export function attemptColumns(a: AttemptRecord) {
  return {
    trigger: a.trigger,
    at: a.attemptedAt.toISOString(),
    code: a.outcome.statusCode,
    error: a.outcome.error,
    ms: a.result.durationMs,
    rid: a.result.requestId,
    url: a.url,
    body: a.result.kind === 'response' ? a.result.body : null,
  };
}

export async function recordAttempt(em: EntityManager, a: AttemptRecord): Promise<boolean> {
  return (await recordAttemptsInTransaction(em, [a])).has(a.claimed.id);
}

/**
 * Writes a batch of attempts (each of a different delivery) and their consequences in one transaction of three
 * statements: the attempt rows, the deliveries' new state (only where the lease is still ours), the
 * subscriptions' health; then the disabling of subscriptions that answered 410 or failed too long. Returns the
 * deliveries whose lease was still held. (attempt.batch.ts writes a batch without a 410 in one statement.)
 */
export async function recordAttemptsInTransaction(
  em: EntityManager,
  list: readonly AttemptRecord[],
): Promise<Set<string>> {
  if (list.length === 0) return new Set();
  const carShareId = scopeOf(em);
  return em.transactional(async (tx) => {
    await run(
      tx,
      `insert into "webhook_attempt" ("car_share_id", "id", "delivery_id", "number", "trigger",
        "attempted_date_utc", "status_code", "error", "duration_ms", "request_id", "url", "response_body")
        select ?::uuid, x."id", x."delivery", coalesce((select max(a."number") from "webhook_attempt" a
            where a."car_share_id" = ? and a."delivery_id" = x."delivery"), 0) + 1,
          x."trigger", x."at", x."code", x."error", x."ms", x."rid", x."url", x."body"
        from jsonb_to_recordset(?::jsonb) as x("id" uuid, "delivery" char(32), "trigger" text, "at" timestamptz,
          "code" int, "error" text, "ms" int, "rid" text, "url" text, "body" text)
        returning "id"`,
      [
        carShareId,
        carShareId,
        JSON.stringify(
          list.map((a) => ({
            id: newId(),
            delivery: a.claimed.id,
            ...attemptColumns(a),
          })),
        ),
      ],
    );
    // A delivery cancelled or skipped meanwhile keeps that status; only the lease holder writes.
    const mine = await run<{ id: string }>(
      tx,
      `update "webhook_delivery" d set "status" = case when d."status" = 'Pending' then x."status" else d."status" end,
        "attempt_count" = x."count", "next_attempt_date_utc" = case when d."status" = 'Pending' then x."next" end,
        "manual" = false, "locked_by" = null, "locked_until_utc" = null, "last_modified_date_utc" = x."now"
        from jsonb_to_recordset(?::jsonb) as x("id" char(32), "token" text, "status" text, "count" int,
          "next" timestamptz, "now" timestamptz)
        where d."car_share_id" = ? and d."id" = x."id" and d."locked_by" = x."token" returning d."id"`,
      [
        JSON.stringify(
          list.map((a) => ({
            id: a.claimed.id,
            token: a.claimed.token,
            status: a.outcome.status,
            count: a.outcome.attemptCount,
            next: a.outcome.nextAttemptDateUtc?.toISOString() ?? null,
            now: a.now.toISOString(),
          })),
        ),
        carShareId,
      ],
    );
    const held = new Set(mine.map((r) => r.id.trim()));
    const ours = list.filter((a) => held.has(a.claimed.id));
    if (ours.length === 0) return held;
    const changes = foldHealth(
      ours.map((a) => ({
        subscriptionId: a.claimed.subscriptionId,
        success: a.outcome.success,
        attemptedAt: a.attemptedAt,
        now: a.now,
      })),
    );
    const subs = await run<{ id: string; failing_since_date_utc: Date | null; is_active: boolean }>(
      tx,
      HEALTH_SQL,
      [JSON.stringify(changes), carShareId],
    );
    const failed = new Set(changes.filter((c) => c.failures > 0).map((c) => c.id));
    for (const sub of subs) {
      if (!failed.has(sub.id)) continue;
      const last = ours.filter((a) => a.claimed.subscriptionId === sub.id).at(-1)!;
      const gone = ours.some((a) => a.claimed.subscriptionId === sub.id && a.outcome.gone);
      if (gone) await disableSubscription(tx, sub.id, 'Gone', last.now);
      else if (
        sub.is_active &&
        sub.failing_since_date_utc &&
        last.now.getTime() - new Date(sub.failing_since_date_utc).getTime() >= last.failingWindowMs
      )
        await disableSubscription(tx, sub.id, 'Failing', last.now);
    }
    return held;
  });
}

/** A claimed delivery that will not be sent after all (its subscription was deleted or disabled meanwhile). */
export async function releaseUnsent(
  em: EntityManager,
  claimed: Claimed,
  status: 'Skipped' | 'Cancelled',
  now: Date,
): Promise<void> {
  await run(
    em,
    `update "webhook_delivery" set "status" = case when "status" = 'Pending' then ? else "status" end,
      "next_attempt_date_utc" = null, "manual" = false, "locked_by" = null, "locked_until_utc" = null,
      "last_modified_date_utc" = ? where "car_share_id" = ? and "id" = ? and "locked_by" = ? returning "id"`,
    [status, now, scopeOf(em), claimed.id, claimed.token],
  );
}

/**
 * Claims never started (the worker is stopping), of the car share `em` is scoped to: due again at once for any
 * worker, this one's leases dropped.
 */
export async function releaseClaims(em: EntityManager, claimed: readonly Claimed[]): Promise<void> {
  if (claimed.length === 0) return;
  await run(
    em,
    `update "webhook_delivery" d set "locked_by" = null, "locked_until_utc" = null
      from jsonb_to_recordset(?::jsonb) as x("id" char(32), "token" text)
      where d."car_share_id" = ? and d."id" = x."id" and d."locked_by" = x."token" returning d."id"`,
    [JSON.stringify(claimed.map((c) => ({ id: c.id, token: c.token }))), scopeOf(em)],
  );
}

/**
 * The car shares with finished deliveries last changed before `before`: a read across car shares of their ids
 * only (§24 rule 5), for the retention sweep.
 */
export async function carSharesWithFinishedBefore(orm: Orm, before: Date): Promise<string[]> {
  const rows = await deploymentSql<{ car_share_id: string }>(
    orm,
    `select distinct "car_share_id" from "webhook_delivery"
        where "status" <> 'Pending' and "last_modified_date_utc" < ?`,
    [before],
  );
  return rows.map((r) => r.car_share_id);
}

/**
 * Retention, in the car share `em` is scoped to: its finished deliveries (and their attempts) older than `before`
 * go, a batch at a time.
 */
export async function deleteFinishedBefore(em: EntityManager, before: Date, limit = 1000): Promise<number> {
  const carShareId = scopeOf(em);
  const gone = await run<{ id: string }>(
    em,
    `delete from "webhook_delivery" where "car_share_id" = ? and "id" in (select "id" from "webhook_delivery"
      where "car_share_id" = ? and "status" <> 'Pending' and "last_modified_date_utc" < ? limit ?) returning "id"`,
    [carShareId, carShareId, before, limit],
  );
  return gone.length;
}
