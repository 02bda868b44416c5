// The system's transitions (CONTRACT §6): expire undecided requests, complete no-shows, auto-complete returned
// bookings. Durable: what is due follows from the bookings' own columns, so a restart loses nothing. Shared:
// a sweep claims due rows with FOR UPDATE SKIP LOCKED, so any number of instances sweep side by side and each
// booking moves once (a claimed row is skipped by the others; once committed it is no longer due).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
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

/** One batch, in the caller's transaction: claims up to `limit` due bookings and moves each. */
export async function runDueBookingTimers(
  ctx: TimerContext,
  policy: BookingPolicy,
  limit = 100,
): Promise<SweepResult> {
  const now = ctx.clock.now();
  // Pending is due at start − lead, Approved (unused) at end − lead, Returned at return + the delay.
  const leadAhead = shift(now, minutes(policy.leadMinutes));
  const returnedBy = shift(now, -minutes(policy.autoCompleteAfterMinutes));
  const claimed = await ctx.em.getConnection().execute<{ id: string }[]>(
    `select id from car_booking
      where (state = 'Pending' and start_date_utc <= ?)
         or (state = 'Approved' and end_date_utc <= ?)
         or (state = 'Returned' and returned_date_utc <= ?)
      limit ? for update skip locked`,
    [leadAhead, leadAhead, returnedBy, limit],
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
 * Sweeps until nothing is due, one transaction per batch. `moved` is told after each batch that moved a booking
 * has committed (cached answers showing those bookings go stale: CONTRACT §28), and awaited before the next.
 */
export async function sweepBookingTimers(
  orm: Orm,
  clock: Clock,
  policy: BookingPolicy,
  batch = 100,
  moved: () => Promise<void> = async () => undefined,
): Promise<SweepResult> {
  const total: SweepResult = { expired: 0, noShows: 0, autoCompleted: 0 };
  for (;;) {
    const r = await orm.em.fork().transactional((em) => runDueBookingTimers({ em, clock }, policy, batch));
    total.expired += r.expired;
    total.noShows += r.noShows;
    total.autoCompleted += r.autoCompleted;
    const n = r.expired + r.noShows + r.autoCompleted;
    if (n > 0) await moved();
    if (n < batch) return total;
  }
}

/** Runs the sweep every `everyMs` on this instance; a tick is skipped while the previous one still runs. */
export function startBookingTimers(opts: {
  orm: Orm;
  clock: Clock;
  policy: BookingPolicy;
  log: Logger;
  everyMs?: number | undefined;
  /** Told once moved bookings have committed (the composition root makes cached answers showing them stale). */
  moved?: () => Promise<void>;
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
