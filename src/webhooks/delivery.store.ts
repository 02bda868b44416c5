// The delivery table's SQL for the workers: claim due deliveries under a lease (FOR UPDATE SKIP LOCKED), and
// record an attempt, the delivery's new state and the subscription's health in one transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../shared/ids.js';
import type { AttemptTrigger } from './delivery.entity.js';
import type { Outcome } from './outcome.js';
import type { AttemptResult } from './send.js';
import type { DisabledReason } from './subscription.entity.js';

export interface Claimed {
  id: string;
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

const run = <T>(em: EntityManager, sql: string, params: unknown[]) =>
  em.getConnection().execute<T[]>(sql, params, 'all', em.getTransactionContext());

/** Takes up to `limit` due deliveries; a lease that ran out (a crashed worker) makes its delivery due again. */
export async function claimDue(
  em: EntityManager,
  opts: { now: Date; leaseMs: number; limit: number },
): Promise<Claimed[]> {
  const token = newId();
  const rows = await run<Claimed>(
    em,
    `update "webhook_delivery" d set "locked_by" = ?, "locked_until_utc" = ?
      where d."id" in (select "id" from "webhook_delivery"
        where "status" = 'Pending' and "next_attempt_date_utc" <= ?
          and ("locked_until_utc" is null or "locked_until_utc" <= ?)
        order by "next_attempt_date_utc" limit ? for update skip locked)
      returning d."id", d."subscription_id" as "subscriptionId", d."event", d."body",
        d."attempt_count" as "attemptCount", d."manual", d."locked_by" as "token", d."event_id" as "eventId",
        (select o."request_id" from "outbox_event" o where o."id" = d."event_id") as "eventRequestId"`,
    [token, new Date(opts.now.getTime() + opts.leaseMs), opts.now, opts.now, opts.limit],
  );
  return rows;
}

/** Marks a subscription's pending deliveries Skipped (it was disabled) or Cancelled (it was deleted). */
export async function settlePending(
  em: EntityManager,
  subscriptionId: string,
  status: 'Skipped' | 'Cancelled',
  now: Date,
): Promise<void> {
  await run(
    em,
    `update "webhook_delivery" set "status" = ?, "next_attempt_date_utc" = null, "manual" = false,
      "last_modified_date_utc" = ? where "subscription_id" = ? and "status" = 'Pending' returning "id"`,
    [status, now, subscriptionId],
  );
}

export async function disableSubscription(
  em: EntityManager,
  subscriptionId: string,
  reason: DisabledReason,
  now: Date,
): Promise<void> {
  await run(
    em,
    `update "webhook_subscription" set "is_active" = false, "disabled_reason" = ?, "last_modified_date_utc" = ?
      where "id" = ? and "is_active" returning "id"`,
    [reason, now, subscriptionId],
  );
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
export async function recordAttempt(em: EntityManager, a: AttemptRecord): Promise<boolean> {
  return em.transactional(async (tx) => {
    const { claimed, result, outcome, now } = a;
    await run(
      tx,
      `insert into "webhook_attempt" ("id", "delivery_id", "number", "trigger", "attempted_date_utc", "status_code",
        "error", "duration_ms", "request_id", "url", "response_body")
        select ?, ?, coalesce(max("number"), 0) + 1, ?, ?, ?, ?, ?, ?, ?, ? from "webhook_attempt" where "delivery_id" = ?
        returning "id"`,
      [
        newId(),
        claimed.id,
        a.trigger,
        a.attemptedAt,
        outcome.statusCode,
        outcome.error,
        result.durationMs,
        result.requestId,
        a.url,
        result.kind === 'response' ? result.body : null,
        claimed.id,
      ],
    );
    // A delivery cancelled or skipped meanwhile keeps that status; only the lease holder writes.
    const mine = await run(
      tx,
      `update "webhook_delivery" set "status" = case when "status" = 'Pending' then ? else "status" end,
        "attempt_count" = ?, "next_attempt_date_utc" = case when "status" = 'Pending' then ?::timestamptz end,
        "manual" = false, "locked_by" = null, "locked_until_utc" = null, "last_modified_date_utc" = ?
        where "id" = ? and "locked_by" = ? returning "id"`,
      [outcome.status, outcome.attemptCount, outcome.nextAttemptDateUtc, now, claimed.id, claimed.token],
    );
    if (mine.length === 0) return false;
    if (outcome.success) {
      await run(
        tx,
        `update "webhook_subscription" set "consecutive_failures" = 0, "failing_since_date_utc" = null,
          "last_success_date_utc" = ? where "id" = ? returning "id"`,
        [now, claimed.subscriptionId],
      );
      return true;
    }
    const [sub] = await run<{ failing_since_date_utc: Date; is_active: boolean }>(
      tx,
      `update "webhook_subscription" set "consecutive_failures" = "consecutive_failures" + 1,
        "last_failure_date_utc" = ?, "failing_since_date_utc" = coalesce("failing_since_date_utc", ?)
        where "id" = ? returning "failing_since_date_utc", "is_active"`,
      [now, a.attemptedAt, claimed.subscriptionId],
    );
    if (outcome.gone) await disableSubscription(tx, claimed.subscriptionId, 'Gone', now);
    else if (
      sub?.is_active &&
      now.getTime() - new Date(sub.failing_since_date_utc).getTime() >= a.failingWindowMs
    )
      await disableSubscription(tx, claimed.subscriptionId, 'Failing', now);
    return true;
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
      "last_modified_date_utc" = ? where "id" = ? and "locked_by" = ? returning "id"`,
    [status, now, claimed.id, claimed.token],
  );
}

export interface Target {
  url: string;
  /** Plain `whsec_` secrets, newest first; the previous one only while its overlap lasts. */
  secrets: string[];
  isActive: boolean;
  deleted: boolean;
}

export async function loadTarget(
  em: EntityManager,
  subscriptionId: string,
  now: Date,
  decrypt: (blob: string) => string,
): Promise<Target | undefined> {
  const [row] = await run<{
    url: string;
    secret: string | null;
    previous_secret: string | null;
    previous_secret_expires_date_utc: Date | null;
    is_active: boolean;
    deleted_date_utc: Date | null;
  }>(
    em,
    `select "url", "secret", "previous_secret", "previous_secret_expires_date_utc", "is_active", "deleted_date_utc"
      from "webhook_subscription" where "id" = ?`,
    [subscriptionId],
  );
  if (!row) return undefined;
  const secrets = row.secret ? [decrypt(row.secret)] : [];
  const overlap = row.previous_secret_expires_date_utc;
  if (row.previous_secret && overlap && new Date(overlap).getTime() > now.getTime())
    secrets.push(decrypt(row.previous_secret));
  return { url: row.url, secrets, isActive: row.is_active, deleted: row.deleted_date_utc !== null };
}

/** Retention: finished deliveries (and their attempts) older than `before` go, a batch at a time. */
export async function deleteFinishedBefore(em: EntityManager, before: Date, limit = 1000): Promise<number> {
  const gone = await run<{ id: string }>(
    em,
    `delete from "webhook_delivery" where "id" in (select "id" from "webhook_delivery"
      where "status" <> 'Pending' and "last_modified_date_utc" < ? limit ?) returning "id"`,
    [before, limit],
  );
  return gone.length;
}
