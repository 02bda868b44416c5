// A batch of attempt outcomes in one statement (one round-trip, atomic by itself): the attempt rows, the
// deliveries' new state where the lease is still ours, and those deliveries' subscriptions' health folded in
// attempt order. A batch with a 410 takes the transaction of delivery.store.ts, which also disables in it. A batch
// is one car share's, written in its scope; the statement names it for every table it touches (CONTRACT §25).
import type { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../db/rows.js';
import { newId } from '../shared/ids.js';
import { scopeOf } from '../webhooks/webhook.scope.js';
import {
  type AttemptRecord,
  attemptColumns,
  disableSubscription,
  recordAttemptsInTransaction,
} from './delivery.store.js';
import { HEALTH_SET } from './subscription.health.js';

/** Parameters: the batch as JSON, then the car share's id four times. */
const SQL = `with x as (select * from jsonb_to_recordset(?::jsonb) as x("aid" uuid, "id" char(32), "token" text,
      "sub" uuid, "trigger" text, "at" timestamptz, "code" int, "error" text, "ms" int, "rid" text, "url" text,
      "body" text, "status" text, "count" int, "next" timestamptz, "now" timestamptz, "success" boolean)),
  att as (insert into "webhook_attempt" ("car_share_id", "id", "delivery_id", "number", "trigger",
      "attempted_date_utc", "status_code", "error", "duration_ms", "request_id", "url", "response_body")
    select ?::uuid, x."aid", x."id", coalesce((select max(a."number") from "webhook_attempt" a
        where a."car_share_id" = ? and a."delivery_id" = x."id"), 0) + 1,
      x."trigger", x."at", x."code", x."error", x."ms", x."rid", x."url", x."body" from x
    returning 1),
  mine as (update "webhook_delivery" d
    set "status" = case when d."status" = 'Pending' then x."status" else d."status" end,
      "attempt_count" = x."count", "next_attempt_date_utc" = case when d."status" = 'Pending' then x."next" end,
      "manual" = false, "locked_by" = null, "locked_until_utc" = null, "last_modified_date_utc" = x."now"
    from x where d."car_share_id" = ? and d."id" = x."id" and d."locked_by" = x."token"
    returning d."id"),
  ours as (select x.* from x join mine on mine."id" = x."id"),
  ok as (select "sub", max("at") filter (where "success") as "okAt" from ours group by "sub"),
  h as (select o."sub" as "id", bool_or(o."success") as "reset",
      count(*) filter (where not o."success" and (ok."okAt" is null or o."at" > ok."okAt"))::int as "failures",
      min(o."at") filter (where not o."success" and (ok."okAt" is null or o."at" > ok."okAt")) as "failingSince",
      max(o."now") filter (where o."success") as "lastSuccess",
      max(o."now") filter (where not o."success") as "lastFailure"
    from ours o join ok on ok."sub" = o."sub" group by o."sub"),
  upd as (update "webhook_subscription" s set ${HEALTH_SET} from h where s."car_share_id" = ? and s."id" = h."id"
    returning s."id", h."failures", s."failing_since_date_utc", s."is_active")
  select (select coalesce(json_agg(trim("id")), '[]'::json) from mine) as "mine",
    (select coalesce(json_agg(upd), '[]'::json) from upd) as "subs", (select count(*) from att) as "attempts"`;

interface Sub {
  id: string;
  failures: number;
  failing_since_date_utc: string | null;
  is_active: boolean;
}

/** Returns the deliveries whose lease was still held. */
export async function recordAttempts(
  em: EntityManager,
  list: readonly AttemptRecord[],
): Promise<Set<string>> {
  if (list.length === 0) return new Set();
  if (list.some((a) => a.outcome.gone)) return recordAttemptsInTransaction(em, list);
  const rows = list.map((a) => ({
    aid: newId(),
    id: a.claimed.id,
    token: a.claimed.token,
    sub: a.claimed.subscriptionId,
    ...attemptColumns(a),
    status: a.outcome.status,
    count: a.outcome.attemptCount,
    next: a.outcome.nextAttemptDateUtc?.toISOString() ?? null,
    now: a.now.toISOString(),
    success: a.outcome.success,
  }));
  const cs = scopeOf(em);
  const [r] = await runSql<{ mine: string[]; subs: Sub[] }>(em, SQL, [JSON.stringify(rows), cs, cs, cs, cs]);
  const held = new Set(r?.mine ?? []);
  // Failing too long disables; rare, and repeated by the next failure should this one not be written.
  for (const sub of r?.subs ?? []) {
    if (sub.failures === 0 || !sub.is_active || !sub.failing_since_date_utc) continue;
    const last = list.filter((a) => a.claimed.subscriptionId === sub.id).at(-1)!;
    if (last.now.getTime() - Date.parse(sub.failing_since_date_utc) >= last.failingWindowMs)
      await em.transactional((tx) => disableSubscription(tx, sub.id, 'Failing', last.now));
  }
  return held;
}
