// Fan-out: committed outbox events become one delivery per matching subscription, as the outbox relay takes them
// (src/events/relay.ts), whether or not this instance sends deliveries. Each instance takes a batch with FOR
// UPDATE SKIP LOCKED, so an event is fanned out once however many instances run; the unique
// (event, subscription) pair makes a repeat harmless. A batch is one car share's, in its scope: its events reach
// only its subscriptions (CONTRACT §20), and every statement names its car_share_id (§25).
import type { EntityManager } from '@mikro-orm/postgresql';
import { runPrepared } from '../db/rows.js';
import type { BusEvent } from '../events/bus.js';
import { scopeOf } from './webhook.scope.js';

interface OutboxRow {
  id: string;
  name: string;
  payload: Record<string, unknown>;
  audience_user_ids: string[];
  occurred_date_utc: Date;
}

/** The body is serialized once here; every attempt sends (and signs) these exact bytes. */
export function serializeBody(payload: Record<string, unknown>): string {
  // jsonb keeps no key order; lead with the fields every payload has, as the contract lists them.
  const { Name, OccurredDateUtc, CarShareId, Id, ...rest } = payload;
  return JSON.stringify({
    Name,
    OccurredDateUtc,
    ...(CarShareId === undefined ? {} : { CarShareId }),
    ...(Id === undefined ? {} : { Id }),
    ...rest,
  });
}

/** An event's payload as it is sent and published: the outbox row's, plus the car share it belongs to (§20). */
export const withCarShare = (
  payload: Record<string, unknown>,
  carShareId: string,
): Record<string, unknown> => ({
  ...payload,
  CarShareId: carShareId,
});

export const DELIVERY_CHANNEL = 'carshare_webhook_delivery';

/** A car share's oldest unpublished events. $1 car share, $2 how many. */
const TAKE_SQL = `select "id", "name", "payload", "audience_user_ids", "occurred_date_utc" from "outbox_event"
  where "car_share_id" = ? and "published_date_utc" is null order by "seq" limit ?`;

/**
 * Those of a batch still unpublished (SKIP LOCKED: another instance has the rest), their deliveries, marked
 * published, and the workers told, atomically. $1 the car share, $2 now, $3 the batch (JSON). Ops' and client
 * applications' subscriptions get every event; a user's only those about them. Numbered placeholders, each used
 * where it is needed, so the statement has three parameters and is prepared once per connection instead of parsed
 * and planned at every batch (bench S5); every table is still named with `car_share_id = $1` (CONTRACT §25).
 */
const FAN_OUT_SQL = `with e as (select * from jsonb_to_recordset($3::jsonb)
    as e("id" uuid, "name" text, "body" text, "audience" jsonb, "occurred" timestamptz)),
  mine as (select o."id" from "outbox_event" o join e on e."id" = o."id"
    where o."car_share_id" = $1 and o."published_date_utc" is null for update of o skip locked),
  ins as (insert into "webhook_delivery" ("car_share_id", "id", "subscription_id", "event_id", "event", "body",
      "status", "attempt_count", "next_attempt_date_utc", "manual", "occurred_date_utc", "created_date_utc",
      "last_modified_date_utc")
    select $1::uuid, replace(gen_random_uuid()::text, '-', ''), s."id", e."id", e."name", e."body",
      case when s."is_active" then 'Pending' else 'Skipped' end, 0,
      case when s."is_active" then $2::timestamptz end, false, e."occurred", $2::timestamptz, $2::timestamptz
    from e join mine on mine."id" = e."id"
    join "webhook_subscription" s on s."car_share_id" = $1 and s."event" = e."name"
      and s."deleted_date_utc" is null and (s."receives_all" or e."audience" @> to_jsonb(s."created_by_id"))
    on conflict ("car_share_id", "event_id", "subscription_id") do nothing
    returning "id"),
  pub as (update "outbox_event" o set "published_date_utc" = $2::timestamptz from mine
    where o."car_share_id" = $1 and o."id" = mine."id"
    returning o."id"),
  woke as (select pg_notify('${DELIVERY_CHANNEL}', $1::text) from (select 1 from ins limit 1) x)
select (select array_agg("id")::text[] from pub) as "published", (select count(*) from woke) as "woke"`;

/**
 * One batch in two prepared statements, each in a short transaction of the car share's scope: a plain read of
 * unpublished events (their bodies are serialized here), then `FAN_OUT_SQL`. Returns the events it published (the
 * relay hands them to the bus after commit), and whether it wrote deliveries.
 */
export async function fanOutBatch(
  em: EntityManager,
  opts: { now: Date; limit: number },
): Promise<{ events: BusEvent[]; wrote: boolean }> {
  const carShareId = scopeOf(em);
  const rows = await runPrepared<OutboxRow>(em, TAKE_SQL, [carShareId, opts.limit]);
  if (rows.length === 0) return { events: [], wrote: false };
  const events: BusEvent[] = rows.map((r) => ({
    id: r.id,
    carShareId,
    name: r.name,
    payload: withCarShare(r.payload, carShareId),
    audienceUserIds: r.audience_user_ids,
    occurredDateUtc: new Date(r.occurred_date_utc).toISOString(),
  }));
  const batch = events.map((e) => ({
    id: e.id,
    name: e.name,
    body: serializeBody(e.payload),
    audience: e.audienceUserIds,
    occurred: e.occurredDateUtc,
  }));
  // The car share names the NOTIFY too: workers claim its deliveries without asking which car shares have any.
  const [done] = await runPrepared<{ published: string[] | null; woke: string }>(em, FAN_OUT_SQL, [
    carShareId,
    opts.now,
    JSON.stringify(batch),
  ]);
  const published = new Set(done?.published ?? []);
  return { events: events.filter((e) => published.has(e.id)), wrote: Number(done?.woke ?? 0) > 0 };
}
