// The system's transitions (CONTRACT §6): expire undecided requests, complete no-shows, auto-complete returned
// bookings. Durable: what is due follows from the bookings' own columns, so a restart loses nothing. Shared:
// a sweep claims due rows with FOR UPDATE SKIP LOCKED, so any number of instances sweep side by side and each
// booking moves once (a claimed row is skipped by the others; once committed it is no longer due). Per car share
// (CONTRACT §20, §24 rule 5): which car shares have due bookings is one read across car shares (their ids only);
// each car share's bookings then move in its own scope, a batch per car share per round, so one car share's
// backlog holds another's timers back by one batch at most.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import { carShareEm, carShareOf, deploymentSql } from '../db/scope.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import { every, type Periodic } from '../shared/periodic.js';
import { recordBookingEvent } from './booking.events.js';
import { type BookingPolicy, minutes, shift } from './booking.policy.js';
import { CarBooking, moveTo } from './car-booking.entity.js';

export interface TimerContext {
  em: EntityManager;
  clock: Clock;
}

export interface SweepResult {
  expired: number;
  noShows: number;
  autoCompleted: number;
}

/** When each state's timer is due: Pending at start − lead, Approved (unused) at end − lead, Returned at return +
 * the delay. Parameters: the three due times, as `dueAt` gives them. */
const DUE = `((state = 'Pending' and start_date_utc <= ?)
    or (state = 'Approved' and end_date_utc <= ?)
    or (state = 'Returned' and returned_date_utc <= ?))`;

function dueAt(now: Date, policy: BookingPolicy): Date[] {
  const leadAhead = shift(now, minutes(policy.leadMinutes));
  const returnedBy = shift(now, -minutes(policy.autoCompleteAfterMinutes));
  return [leadAhead, leadAhead, returnedBy];
}

/** The car shares with bookings due a system transition: a read across car shares of their ids only. */
export async function carSharesWithDueBookings(
  orm: Orm,
  now: Date,
  policy: BookingPolicy,
): Promise<string[]> {
  const rows = await deploymentSql<{ car_share_id: string }>(
    orm,
    `select distinct car_share_id from car_booking where ${DUE}`,
    dueAt(now, policy),
  );
  return rows.map((r) => r.car_share_id);
}

/**
 * One batch, in the caller's transaction (in a car share's scope): claims up to `limit` of that car share's due
 * bookings and moves each.
 */
export async function runDueBookingTimers(
  ctx: TimerContext,
  policy: BookingPolicy,
  limit = 100,
): Promise<SweepResult> {
  const now = ctx.clock.now();
  const carShareId = carShareOf(ctx.em);
  if (!carShareId) throw new Error('booking timers outside a car share scope: use carShareEm or inCarShare');
  const claimed = await ctx.em
    .getConnection()
    .execute<{ id: string }[]>(
      `select id from car_booking where car_share_id = ? and ${DUE} limit ? for update skip locked`,
      [carShareId, ...dueAt(now, policy), limit],
      'all',
      ctx.em.getTransactionContext(),
    );
  const result: SweepResult = { expired: 0, noShows: 0, autoCompleted: 0 };
  if (claimed.length === 0) return result;
  const due = await ctx.em.find(CarBooking, { id: { $in: claimed.map((r) => r.id) } });
  for (const b of due) {
    if (b.state === 'Pending') {
      moveTo(b, 'Expired', now);
      result.expired += 1;
    } else if (b.state === 'Approved') {
      moveTo(b, 'Completed', now);
      b.isNoShow = true;
      recordBookingEvent(ctx, 'carbooking_complete', b);
      result.noShows += 1;
    } else if (b.state === 'Returned') {
      moveTo(b, 'Completed', now);
      recordBookingEvent(ctx, 'carbooking_complete', b);
      result.autoCompleted += 1;
    }
  }
  await ctx.em.flush();
  return result;
}

/**
 * Sweeps until nothing is due, one transaction per batch in its car share's scope, the car shares with due
 * bookings taken in turn (one batch each per round). `moved` is told after each batch that moved a booking has
 * committed (that car share's cached answers showing those bookings go stale: CONTRACT §28), and awaited before
 * the next.
 */
export async function sweepBookingTimers(
  orm: Orm,
  clock: Clock,
  policy: BookingPolicy,
  batch = 100,
  moved: (carShareId: string) => Promise<void> = async () => undefined,
): Promise<SweepResult> {
  const total: SweepResult = { expired: 0, noShows: 0, autoCompleted: 0 };
  let round = await carSharesWithDueBookings(orm, clock.now(), policy);
  while (round.length > 0) {
    const next: string[] = [];
    for (const carShareId of round) {
      const r = await carShareEm(orm, carShareId).transactional((em) =>
        runDueBookingTimers({ em: em as EntityManager, clock }, policy, batch),
      );
      total.expired += r.expired;
      total.noShows += r.noShows;
      total.autoCompleted += r.autoCompleted;
      const n = r.expired + r.noShows + r.autoCompleted;
      if (n > 0) await moved(carShareId);
      if (n === batch) next.push(carShareId);
    }
    round = next;
  }
  return total;
}

/** Runs the sweep every `everyMs` on this instance; a tick is skipped while the previous one still runs. */
export function startBookingTimers(opts: {
  orm: Orm;
  clock: Clock;
  policy: BookingPolicy;
  log: Logger;
  everyMs?: number | undefined;
  /**
   * Told once a car share's moved bookings have committed (the composition root makes its cached answers showing
   * them stale).
   */
  moved?: (carShareId: string) => Promise<void>;
}): Periodic {
  return every(
    opts.everyMs ?? 15_000,
    async () => {
      const r = await sweepBookingTimers(opts.orm, opts.clock, opts.policy, 100, opts.moved);
      if (r.expired + r.noShows + r.autoCompleted > 0) opts.log.info(r, 'booking timers fired');
    },
    (err) => opts.log.error({ err }, 'booking timer sweep failed'),
  );
}
