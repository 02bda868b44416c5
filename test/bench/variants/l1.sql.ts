// L1's hand-written SQL: each statement builds the whole response body in PostgreSQL (json_build_object /
// json_agg, the technique of GraphQL-to-SQL compilers), byte for byte the envelope the REST facade answers.
// Every table is read within the bench's car share (the connection's `carshare.car_share_id`), by condition, as
// the owner: no policy applies, and the composite keys (car_share_id first) serve every lookup.

/** The car share the connection was opened for (l1.ts). */
const CS = `current_setting('carshare.car_share_id')::uuid`;

const utc = (col: string) => `to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The name-based id of a subject's not-yet-rated Rating (ratings/rating.loaders.ts `ratingId`). */
const derivedRatingId = (type: string, idCol: string) => {
  const h = `encode(digest('rating:${type}:' || ${idCol}::text, 'sha1'), 'hex')`;
  return `(select substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-5' || substr(h, 14, 3) || '-' ||
      to_hex(((position(substr(h, 17, 1) in '0123456789abcdef') - 1) & 3) | 8) || substr(h, 18, 3) || '-' ||
      substr(h, 21, 12) from (select ${h} as h) x)`;
};

const rating = (type: string, idCol: string) => `(select json_build_object(
    'Id', coalesce(r.id::text, ${derivedRatingId(type, idCol)}), 'SubjectType', '${type}', 'SubjectId', ${idCol},
    'Average', r.average, 'Count', coalesce(r.count, 0),
    'CreatedDateUtc', ${utc('r.created_date_utc')}, 'LastModifiedDateUtc', ${utc('r.last_modified_date_utc')})
  from (select 1) one left join rating r on r.car_share_id = ${CS} and r.subject_type = '${type}' and r.subject_id = ${idCol})`;

/** A car with every embed (rating, verifications, owner with rating), as a client application sees it. */
const carJson = (c: string) => `json_strip_nulls(json_build_object(
  'Id', ${c}.id, 'OwnerId', ${c}.owner_id, 'Make', ${c}.make, 'Model', ${c}.model, 'Year', ${c}.year,
  'Color', ${c}.color, 'Transmission', ${c}.transmission, 'Seats', ${c}.seats, 'Description', ${c}.description,
  'LicensePlate', json_build_object('Jurisdiction', ${c}.license_plate_jurisdiction,
    'Number', ${c}.license_plate_number),
  'HomeLocation', json_build_object('Address', ${c}.home_address, 'Latitude', ${c}.home_latitude,
    'Longitude', ${c}.home_longitude),
  'HourlyRate', json_build_object('Amount', ${c}.hourly_rate_amount::text, 'Currency', ${c}.hourly_rate_currency),
  'AutoApprove', ${c}.auto_approve, 'MinimumBookingMinutes', ${c}.minimum_booking_minutes,
  'MaximumBookingMinutes', ${c}.maximum_booking_minutes, 'Status', ${c}.status,
  'IsVerified', (select count(*) = 2 from verification v where v.car_share_id = ${CS} and v.subject_type = 'Car' and v.subject_id = ${c}.id
    and v.kind in ('LicensePlate', 'RoadWorthiness') and v.status = 'Verified'),
  'LockState', ${c}.lock_state, 'LockStateChangedDateUtc', ${utc(`${c}.lock_state_changed_date_utc`)},
  'CreatedDateUtc', ${utc(`${c}.created_date_utc`)}, 'LastModifiedDateUtc', ${utc(`${c}.last_modified_date_utc`)},
  'Rating', ${rating('Car', `${c}.id`)},
  'Verifications', coalesce((select json_agg(json_build_object('Id', v.id, 'SubjectType', v.subject_type,
      'SubjectId', v.subject_id, 'Kind', v.kind, 'Status', v.status,
      'ExpiresDateUtc', ${utc('v.expires_date_utc')}, 'DecidedDateUtc', ${utc('v.decided_date_utc')},
      'DecidedById', v.decided_by_id, 'Reason', v.reason, 'CreatedDateUtc', ${utc('v.created_date_utc')},
      'LastModifiedDateUtc', ${utc('v.last_modified_date_utc')}) order by v.kind)
    from verification v where v.car_share_id = ${CS} and v.subject_type = 'Car' and v.subject_id = ${c}.id), '[]'),
  'Owner', (select json_build_object('Id', o.id, 'UserId', o.user_id, 'FirstName', o.first_name,
      'LastName', o.last_name, 'DisplayName', o.display_name, 'Description', o.description,
      'AvatarUrl', o.avatar_url, 'CreatedDateUtc', ${utc('o.created_date_utc')},
      'LastModifiedDateUtc', ${utc('o.last_modified_date_utc')}, 'Rating', ${rating('UserAccount', 'o.user_id')})
    from profile o where o.car_share_id = ${CS} and o.user_id = ${c}.owner_id)))`;

/** S1: a page of cars, newest first, with Metadata. $1 limit, $2 offset. */
export const searchCarsSql = `with page as (
    select c.*, count(*) over () as total from car c where c.car_share_id = ${CS}
    order by c.created_date_utc desc, c.id desc limit $1 offset $2)
  select json_build_object(
    'Cars', coalesce((select json_agg(${carJson('p')} order by p.created_date_utc desc, p.id desc) from page p), '[]'),
    'Metadata', json_build_object('Total', coalesce((select total from page limit 1), (select count(*) from car where car_share_id = ${CS})),
      'Limit', $1::int, 'Offset', $2::int,
      'Sort', json_build_object('By', 'CreatedDateUtc', 'Direction', 'Descending'),
      'Filter', json_build_object('Fields', '[]'::json), 'Distinct', null))::text as body`;

/** S2: one car by id. $1 id. */
export const carSql = `select json_build_object('Car', ${carJson('p')})::text as body from car p where p.car_share_id = ${CS} and p.id = $1`;

/**
 * S5's write limit: the booking and its outbox event in one transaction, one statement each, answering the
 * booking's own fields. $1 id, $2 car, $3 borrower, $4 start, $5 end, $6 message, $7 reference, $8 event id.
 */
export const insertBookingSql = `insert into car_booking (id, reference, car_id, borrower_id, owner_id, state,
    start_date_utc, end_date_utc, message, requested_date_utc, approved_date_utc, is_no_show, hourly_rate_amount,
    hourly_rate_currency, created_date_utc, last_modified_date_utc)
  select $1, $7, c.id, $3, c.owner_id, 'Approved', $4, $5, $6, now(), now(), false, c.hourly_rate_amount,
    c.hourly_rate_currency, now(), now()
  from car c where c.car_share_id = ${CS} and c.id = $2
  returning json_build_object('Booking', json_strip_nulls(json_build_object('Id', id, 'Reference', reference,
    'CarId', car_id, 'BorrowerId', borrower_id, 'OwnerId', owner_id, 'State', state,
    'StartDateUtc', ${utc('start_date_utc')}, 'EndDateUtc', ${utc('end_date_utc')}, 'Message', message,
    'RequestedDateUtc', ${utc('requested_date_utc')}, 'ApprovedDateUtc', ${utc('approved_date_utc')},
    'IsNoShow', is_no_show,
    'EstimatedCost', json_build_object('Amount', round(hourly_rate_amount *
      extract(epoch from end_date_utc - start_date_utc) / 3600, 2)::text, 'Currency', hourly_rate_currency),
    'CreatedDateUtc', ${utc('created_date_utc')}, 'LastModifiedDateUtc', ${utc('last_modified_date_utc')})))::text
    as body, car_id, borrower_id, owner_id, start_date_utc, end_date_utc, reference`;

/**
 * Written as already published, so the service's fan-out (the one measured in S7) does not take it up; announced
 * as the service announces events (CONTRACT §25: the writer NOTIFYs the relays in its transaction, which a trigger
 * did before car shares, naming the car share as the service does), so L1 does the same work as the service and as
 * L1 on the schema before.
 */
export const insertEventSql = `with e as (insert into outbox_event (id, name, payload, audience_user_ids,
    occurred_date_utc, published_date_utc)
  values ($1, 'carbooking_approve', $2::jsonb, $3::jsonb, now(), now()) returning 1)
  select pg_notify('carshare_outbox', current_setting('carshare.car_share_id')) from e`;
