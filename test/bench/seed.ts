// The benchmark data set, written with set-based SQL (generate_series) in batches behind a progress bar:
// deterministic ids and values, so every run and every variant sees the same rows.
import type pg from 'pg';

export interface SeedSize {
  cars: number;
  bookings: number;
  users: number;
}

/** Users [0, owners) own the cars (round robin); the others borrow. */
export const ownersOf = (size: SeedSize): number => Math.max(1, Math.floor(size.users / 2));
export const userId = (i: number) => `md5('u${i}')::uuid`;
export const BENCH_PASSWORD = 'bench passphrase not in any list';
export const userName = (i: number): string => `user${i}@bench.example`;
/** Seeded creation times count back from here, one minute apart. */
const BASE = `timestamptz '2026-06-01T00:00:00Z'`;
const MAKES = `array['Toyota','Honda','Volkswagen','Renault','Peugeot','Ford','Skoda','Fiat','Kia','Tesla']`;
const COLORS = `array['Red','Blue','Black','White','Silver','Green', null]`;
const REF = `'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'`;
/**
 * Where cars live: four in five in a city-sized cluster (Berlin, 55 × 45 km), the fifth spread over the world,
 * so a search near a place has a city's worth of cars around it and the rest far away.
 */
const HOME_LATITUDE = `case when i % 5 = 4 then -60 + (i * 37 % 1300) / 10.0 else 52.3 + (i % 1000) / 2000.0 end`;
const HOME_LONGITUDE = `case when i % 5 = 4 then -180 + (i * 53 % 3600) / 10.0 else 13.1 + (i % 997) / 1500.0 end`;
/** The center of the cluster: the place the benchmark's distance search starts from. */
export const CLUSTER_CENTER = { latitude: 52.55, longitude: 13.43 } as const;

const users = (from: number, to: number, hash: string) => [
  `insert into user_account (id, username, password_hash, roles, status, failed_sign_ins, created_date_utc,
     last_modified_date_utc)
   select md5('u' || i)::uuid, 'user' || i || '@bench.example', '${hash}', '["user"]', 'Active', 0,
     ${BASE} - make_interval(mins => i), ${BASE} - make_interval(mins => i)
   from generate_series(${from}, ${to - 1}) i`,
  `insert into profile (id, user_id, first_name, last_name, display_name, phone_number, description,
     created_date_utc, last_modified_date_utc)
   select md5('p' || i)::uuid, md5('u' || i)::uuid, 'First' || i, 'Last' || i, 'First' || i || ' L.',
     '+4930' || lpad(i::text, 7, '0'), case when i % 3 = 0 then null else 'Likes long drives, number ' || i end,
     ${BASE} - make_interval(mins => i), ${BASE} - make_interval(mins => i)
   from generate_series(${from}, ${to - 1}) i`,
  `insert into verification (id, subject_type, subject_id, subject_user_id, kind, status, evidence,
     decided_date_utc, created_date_utc, last_modified_date_utc)
   select md5('v' || i || k)::uuid, 'UserAccount', md5('u' || i)::uuid, md5('u' || i)::uuid, k, 'Verified',
     '{}'::jsonb, ${BASE}, ${BASE} - make_interval(mins => i), ${BASE}
   from generate_series(${from}, ${to - 1}) i, unnest(array['Email','PhoneNumber','DriversLicense']) k`,
  `insert into rating (id, subject_type, subject_id, count, average, created_date_utc, last_modified_date_utc)
   select md5('ru' || i)::uuid, 'UserAccount', md5('u' || i)::uuid, 1 + i % 17, round((1 + (i % 41) / 10.0), 1),
     ${BASE}, ${BASE}
   from generate_series(${from}, ${to - 1}) i where i % 2 = 0`,
];

const cars = (from: number, to: number, owners: number) => [
  `insert into car (id, owner_id, make, model, year, color, transmission, seats, description,
     license_plate_jurisdiction, license_plate_number, home_address, home_latitude, home_longitude,
     hourly_rate_amount, hourly_rate_currency, auto_approve, minimum_booking_minutes, maximum_booking_minutes,
     status, lock_state, created_date_utc, last_modified_date_utc)
   select md5('c' || i)::uuid, md5('u' || (i % ${owners}))::uuid, (${MAKES})[1 + i % 10], 'Model ' || (i % 37),
     2005 + i % 20, (${COLORS})[1 + i % 7], case when i % 4 = 0 then 'Manual' else 'Automatic' end, 2 + i % 6,
     case when i % 5 = 0 then null else 'A tidy car near the station, number ' || i end, 'DE-BE',
     'B-CS ' || i, i || ' Example Street, Berlin', ${HOME_LATITUDE}, ${HOME_LONGITUDE},
     ((5 + i % 40) || '.50')::numeric, 'EUR', i % 2 = 0, 60, 20160,
     case when i % 10 = 9 then 'Unlisted' when i % 10 = 8 then 'Draft' else 'Listed' end, 'Locked',
     ${BASE} - make_interval(mins => i), ${BASE} - make_interval(mins => i)
   from generate_series(${from}, ${to - 1}) i`,
  `insert into verification (id, subject_type, subject_id, subject_user_id, kind, status, evidence,
     decided_date_utc, created_date_utc, last_modified_date_utc)
   select md5('v' || 'c' || i || k)::uuid, 'Car', md5('c' || i)::uuid, md5('u' || (i % ${owners}))::uuid, k,
     case when i % 10 = 7 then 'Pending' else 'Verified' end, '{}'::jsonb, ${BASE},
     ${BASE} - make_interval(mins => i), ${BASE}
   from generate_series(${from}, ${to - 1}) i, unnest(array['LicensePlate','RoadWorthiness']) k`,
  `insert into rating (id, subject_type, subject_id, count, average, created_date_utc, last_modified_date_utc)
   select md5('rc' || i)::uuid, 'Car', md5('c' || i)::uuid, 1 + i % 23, round((1 + (i % 37) / 9.0), 1),
     ${BASE}, ${BASE}
   from generate_series(${from}, ${to - 1}) i where i % 3 <> 0`,
];

/**
 * Booking j is of car j % cars, in slot j / cars: past slots are finished (so no timer has work), the last two
 * slots lie 10 and 20 days ahead, Approved or Pending. The benchmark's own requests book from 100 days ahead.
 */
const bookings = (from: number, to: number, size: SeedSize, owners: number) => {
  const slots = Math.ceil(size.bookings / size.cars);
  return [
    `insert into car_booking (id, reference, car_id, borrower_id, owner_id, state, start_date_utc, end_date_utc,
       requested_date_utc, approved_date_utc, declined_date_utc, cancelled_date_utc, expired_date_utc,
       completed_date_utc, used_date_utc, returned_date_utc, is_no_show, hourly_rate_amount, hourly_rate_currency,
       created_date_utc, last_modified_date_utc)
     select md5('b' || j)::uuid,
       (select string_agg(substr(${REF}, 1 + ((j / (32 ^ p)::bigint) % 32)::int, 1), '' order by p)
          from generate_series(0, 7) p),
       md5('c' || c)::uuid, md5('u' || (${owners} + j % (${size.users} - ${owners})))::uuid,
       md5('u' || (c % ${owners}))::uuid, st, start, start + interval '2 hours', start - interval '3 days',
       case when st in ('Approved', 'Completed') then start - interval '2 days' end,
       case when st = 'Declined' then start - interval '2 days' end,
       case when st = 'Cancelled' then start - interval '1 day' end,
       case when st = 'Expired' then start end,
       case when st = 'Completed' then start + interval '3 hours' end,
       case when st = 'Completed' then start end,
       case when st = 'Completed' then start + interval '2 hours' end,
       false, ((5 + c % 40) || '.50')::numeric, 'EUR', start - interval '3 days', start - interval '1 day'
     from (select j, j % ${size.cars} as c, j / ${size.cars} as k from generate_series(${from}, ${to - 1}) j) s,
       lateral (select case when k >= ${slots - 2}
                 then date_trunc('hour', now()) + make_interval(days => 10 * (k - ${slots - 3}))
                 else ${BASE} - make_interval(days => 7 * (k + 1)) end as start,
               case when k >= ${slots - 2} then (array['Approved','Pending'])[1 + j % 2]
                 else (array['Completed','Completed','Cancelled','Declined','Expired'])[1 + j % 5] end as st) x`,
  ];
};

function progress(label: string, done: number, total: number): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(
    `\r  seeding ${label.padEnd(9)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.round((done / total) * 100)}%  `,
  );
  if (done >= total) process.stderr.write('\n');
}

async function inBatches(
  db: pg.Client,
  label: string,
  total: number,
  batch: number,
  sql: (from: number, to: number) => string[],
): Promise<void> {
  progress(label, 0, total);
  for (let from = 0; from < total; from += batch) {
    const to = Math.min(total, from + batch);
    for (const s of sql(from, to)) await db.query(s);
    progress(label, to, total);
  }
}

/**
 * Fills the car share named by the connection's `carshare.car_share_id` (every row takes it as its default) in a
 * migrated database. `passwordHash` is the argon2 hash every seeded user signs in with. Another car share's
 * rows get other ids from the same values: every id is an `md5('…')` of a text, which `idPrefix` begins.
 */
export async function seed(
  db: pg.Client,
  size: SeedSize,
  passwordHash: string,
  idPrefix = '',
): Promise<void> {
  const owners = ownersOf(size);
  const ids = (sql: string[]) => sql.map((s) => s.replaceAll("md5('", `md5('${idPrefix}`));
  await db.query('begin');
  await inBatches(db, 'users', size.users, 500, (a, b) => ids(users(a, b, passwordHash)));
  await inBatches(db, 'cars', size.cars, 2000, (a, b) => ids(cars(a, b, owners)));
  await inBatches(db, 'bookings', size.bookings, 10_000, (a, b) => ids(bookings(a, b, size, owners)));
  await db.query('commit');
  await db.query('vacuum analyze');
}
