// A booking request's checks, its insert and its outbox event in one statement, run under the car's row lock
// (taken by the statement before it, so this one's snapshot sees everything committed before the lock).
import type { EntityManager } from '@mikro-orm/postgresql';
import { carShareIdOf } from '../db/car-share-condition.js';
import { runPrepared } from '../db/rows.js';
import { announceOutboxEvents } from '../events/outbox.announce.js';
import { requiredKinds } from '../verifications/verification.entity.js';
import { occupyingStates, sqlStates } from './car-booking.entity.js';

export interface RequestRow {
  /** Column values of the booking to write (snake_case, as stored). */
  booking: Record<string, unknown>;
  /** The outbox row written with it when the booking is inserted; null when the request raises no event. */
  event: {
    id: string;
    name: string;
    payload: string;
    audience: string;
    occurred: Date;
    requestId: string | null;
  } | null;
  /** The rules decided in code before the statement (start lead, duration): the insert waits for them too. */
  rulesHold: boolean;
}

export interface RequestOutcome {
  borrowerVerified: boolean;
  carBookable: boolean;
  conflict: { start: Date; end: Date } | null;
  /** The row as written; null when a check refused it or its reference was taken. */
  written: Record<string, unknown> | null;
  /**
   * What the answer embeds, read in the same statement (columns by name, as `to_jsonb` gives them): the profiles
   * of borrower and owner, the ratings of car, borrower and owner, and the car's verifications (by kind).
   */
  embeds: { profiles: Row[]; ratings: Row[]; carVerifications: Row[] } | null;
}

type Row = Record<string, unknown>;

const kinds = (list: readonly string[]) => list.map((k) => `'${k}'`).join(', ');

const COLUMNS = [
  'id',
  'reference',
  'car_id',
  'borrower_id',
  'owner_id',
  'state',
  'start_date_utc',
  'end_date_utc',
  'message',
  'requested_date_utc',
  'approved_date_utc',
  'is_no_show',
  'hourly_rate_amount',
  'hourly_rate_currency',
  'created_date_utc',
  'last_modified_date_utc',
] as const;

/**
 * A bookable car is Listed, its required verifications Verified and its owner's account Active (CONTRACT §5
 * Car); a verified borrower has every required kind Verified. Column values arrive as one jsonb record. Every
 * table read or written names the car share, `car_share_id = ?` (CONTRACT §25): the `?`s marked `cs` below, in
 * the order of the text.
 */
const SQL = `with b as (select * from jsonb_populate_record(null::car_booking, ?::jsonb)),
  chk as (
    select
      (select count(distinct v.kind) from verification v where v.car_share_id = ? /* cs */
        and v.subject_type = 'UserAccount' and v.subject_id = b.borrower_id and v.status = 'Verified'
        and v.kind in (${kinds(requiredKinds.UserAccount)})) = ${requiredKinds.UserAccount.length} as borrower_verified,
      (c.status = 'Listed'
        and (select count(distinct v.kind) from verification v where v.car_share_id = ? /* cs */
          and v.subject_type = 'Car' and v.subject_id = c.id and v.status = 'Verified'
          and v.kind in (${kinds(requiredKinds.Car)})) = ${requiredKinds.Car.length}
        and exists (select 1 from user_account u where u.car_share_id = ? /* cs */
          and u.id = c.owner_id and u.status = 'Active')) as car_bookable,
      t.start_date_utc as conflict_start, t.end_date_utc as conflict_end
    from b join car c on c.car_share_id = ? /* cs */ and c.id = b.car_id
    left join lateral (
      select start_date_utc, end_date_utc from (
        select x.start_date_utc, x.end_date_utc from car_booking x
         where x.car_share_id = ? /* cs */ and x.car_id = b.car_id and x.state in (${sqlStates(occupyingStates)})
           and x.start_date_utc < b.end_date_utc and x.end_date_utc > b.start_date_utc
        union all
        select u.start_date_utc, u.end_date_utc from unavailability u
         where u.car_share_id = ? /* cs */ and u.car_id = b.car_id
           and u.start_date_utc < b.end_date_utc and u.end_date_utc > b.start_date_utc) taken
      order by start_date_utc limit 1) t on true),
  ins as (
    insert into car_booking (car_share_id, ${COLUMNS.join(', ')})
    select ?::uuid /* cs */, ${COLUMNS.map((c) => `b.${c}`).join(', ')} from b, chk
     where ?::boolean and chk.borrower_verified and chk.car_bookable and chk.conflict_start is null
    on conflict (car_share_id, reference) do nothing
    returning *),
  ev as (
    insert into outbox_event (id, car_share_id, name, payload, audience_user_ids, occurred_date_utc,
      published_date_utc, request_id)
    select ?::uuid, ?::uuid /* cs */, ?, ?::jsonb, ?::jsonb, ?::timestamptz, null, ? from ins where ?::boolean
    returning id)
  select chk.borrower_verified, chk.car_bookable, chk.conflict_start, chk.conflict_end,
    (select count(*) from ev)::int as events, to_jsonb(ins) as written,
    case when ins.id is not null then jsonb_build_array(
      (select coalesce(jsonb_agg(to_jsonb(p)), '[]') from profile p
        where p.car_share_id = ? /* cs */ and p.user_id in (b.borrower_id, b.owner_id)),
      (select coalesce(jsonb_agg(to_jsonb(r)), '[]') from rating r
        where r.car_share_id = ? /* cs */ and ((r.subject_type = 'Car' and r.subject_id = b.car_id)
           or (r.subject_type = 'UserAccount' and r.subject_id in (b.borrower_id, b.owner_id)))),
      (select coalesce(jsonb_agg(to_jsonb(v) order by v.kind asc), '[]') from verification v
        where v.car_share_id = ? /* cs */ and v.subject_type = 'Car' and v.subject_id = b.car_id)) end as embeds
  from b, chk left join ins on true`;

/** Checks and writes in one statement; the caller holds the car's row lock. */
export async function checkAndInsert(em: EntityManager, r: RequestRow): Promise<RequestOutcome> {
  const e = r.event;
  const cs = carShareIdOf(em);
  // Prepared: PostgreSQL parses and plans this long statement once per connection, not on every request.
  const [row] = await runPrepared<{
    borrower_verified: boolean;
    car_bookable: boolean;
    conflict_start: Date | null;
    conflict_end: Date | null;
    events: number;
    written: Record<string, unknown> | null;
    embeds: [Row[], Row[], Row[]] | null;
  }>(em, SQL, [
    JSON.stringify(r.booking),
    cs,
    cs,
    cs,
    cs,
    cs,
    cs,
    cs,
    r.rulesHold,
    e?.id ?? null,
    cs,
    e?.name ?? null,
    e?.payload ?? null,
    e?.audience ?? null,
    e?.occurred ?? null,
    e?.requestId ?? null,
    e !== null,
    cs,
    cs,
    cs,
  ]);
  if (!row)
    return { borrowerVerified: false, carBookable: false, conflict: null, written: null, embeds: null };
  // The outbox row written here wakes the relays as the ORM's do, in this transaction (events/outbox.announce.ts).
  if (row.events > 0) await announceOutboxEvents(em);
  return {
    borrowerVerified: row.borrower_verified,
    carBookable: row.car_bookable,
    conflict:
      row.conflict_start && row.conflict_end
        ? { start: new Date(row.conflict_start), end: new Date(row.conflict_end) }
        : null,
    written: row.written,
    embeds: row.embeds && {
      profiles: row.embeds[0],
      ratings: row.embeds[1],
      carVerifications: row.embeds[2],
    },
  };
}
