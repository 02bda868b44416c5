// The summary report (CONTRACT §7): three SQL statements over bookings, accounts, cars and verifications.
// Reports read those tables directly (a count is one aggregate, not a loader), but take the closed lists of states
// and required kinds from their owners, so a new member is counted without anyone remembering to.
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type BookingState, bookingStates } from '../bookings/car-booking.entity.js';
import type { Context } from '../graphql/context.js';
import { checkRange } from '../shared/pagination.js';
import { requiredKinds } from '../verifications/verification.entity.js';

const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 30;

/** The kinds required of a borrower and of a car (all Verified makes the subject verified), and the states. */
const BORROWER_KINDS = requiredKinds.UserAccount;
const CAR_KINDS = requiredKinds.Car;
type StateCounts = { [S in BookingState as Uncapitalize<S>]: number };

export interface Summary {
  id: string;
  fromUtc: Date;
  toUtc: Date;
  bookingsByState: StateCounts;
  users: { active: number; unverified: number };
  cars: { listed: number; unverified: number };
  bookingsInRange: { created: number; used: number; completed: number };
  createdDateUtc: Date;
  lastModifiedDateUtc: Date;
}

export interface SummaryArgs {
  fromUtc?: Date | null;
  toUtc?: Date | null;
}

/** A UUID (version 8, name-based) for the report of one range, so the same range is the same resource. */
function rangeId(from: Date, to: Date): string {
  const h = createHash('sha256').update(`summary:${from.toISOString()}:${to.toISOString()}`).digest('hex');
  const variant = ((Number.parseInt(h.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const uncap = <S extends string>(s: S) => (s.charAt(0).toLowerCase() + s.slice(1)) as Uncapitalize<S>;
const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** Subjects of one type that lack one of the required kinds in Verified: `not in` this set (parameters: the car
 * share's id, the subject type, the kinds, their number). */
const verifiedSubjects = (kinds: readonly string[]) =>
  `select subject_id from verification where car_share_id = ? and subject_type = ? and status = 'Verified'
     and kind in (${placeholders(kinds.length)}) group by subject_id having count(distinct kind) = ?`;

export async function summary(ctx: Context, args: SummaryArgs): Promise<Summary> {
  checkRange('fromUtc', args.fromUtc, 'toUtc', args.toUtc);
  const to = args.toUtc ?? ctx.clock.now();
  const from = args.fromUtc ?? new Date(to.getTime() - DEFAULT_DAYS * DAY_MS);
  checkRange('fromUtc', from, 'toUtc', to);
  // One car share's counts: in its scope (one transaction of it), every table named with its car_share_id (§25).
  const cs = ctx.carShare.id;
  const read = async (em: EntityManager) => {
    const run = async (sql: string, params: unknown[]) =>
      (
        await em
          .getConnection()
          .execute<Record<string, string>[]>(sql, params, 'all', em.getTransactionContext())
      )[0] ?? {};
    const inRange = (col: string) => `count(*) filter (where ${col} >= ? and ${col} < ?)`;
    const bookings = await run(
      `select ${bookingStates.map((s) => `count(*) filter (where state = '${s}') as "${uncap(s)}"`).join(', ')},
         ${inRange('created_date_utc')} as created, ${inRange('used_date_utc')} as used,
         ${inRange('completed_date_utc')} as completed_in_range
       from car_booking where car_share_id = ?`,
      [from, to, from, to, from, to, cs],
    );
    const users = await run(
      `select count(*) filter (where status = 'Active') as active,
         count(*) filter (where not roles @> '["ops"]' and id not in (${verifiedSubjects(BORROWER_KINDS)})) as unverified
       from user_account where car_share_id = ?`,
      [cs, 'UserAccount', ...BORROWER_KINDS, BORROWER_KINDS.length, cs],
    );
    const cars = await run(
      `select count(*) filter (where status = 'Listed') as listed,
         count(*) filter (where id not in (${verifiedSubjects(CAR_KINDS)})) as unverified
       from car where car_share_id = ?`,
      [cs, 'Car', ...CAR_KINDS, CAR_KINDS.length, cs],
    );
    return { bookings, users, cars };
  };
  const { bookings, users, cars } = ctx.em.getTransactionContext()
    ? await read(ctx.em)
    : await ctx.em.transactional((em) => read(em as EntityManager));

  const n = (v: string | undefined) => Number(v ?? 0);
  const now = ctx.clock.now();
  return {
    id: rangeId(from, to),
    fromUtc: from,
    toUtc: to,
    bookingsByState: Object.fromEntries(
      bookingStates.map((s) => [uncap(s), n(bookings[uncap(s)])]),
    ) as StateCounts,
    users: { active: n(users.active), unverified: n(users.unverified) },
    cars: { listed: n(cars.listed), unverified: n(cars.unverified) },
    bookingsInRange: {
      created: n(bookings.created),
      used: n(bookings.used),
      completed: n(bookings.completed_in_range),
    },
    createdDateUtc: now,
    lastModifiedDateUtc: now,
  };
}
