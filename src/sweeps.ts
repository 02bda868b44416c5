// The background sweeps every instance runs beside the service (src/service.ts starts them): verification expiry,
// the purge of deleted car shares, and the booking timers.
import { bookingPolicy } from './bookings/booking.policy.js';
import { startBookingTimers } from './bookings/booking.timers.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { startPurge } from './platform/purge.js';
import type { Changed } from './shared/changes.js';
import type { Clock } from './shared/clock.js';
import type { Logger } from './shared/log.js';
import { every, type Periodic } from './shared/periodic.js';
import { sweepVerificationExpiry } from './verifications/verification.expiry.js';

const SWEEP_MS = 60_000;

/**
 * The background sweeps: verification expiry, and the booking timers (expire, no-show, auto-complete), each car
 * share's rows in its own scope, the car shares in turn. What they change is made stale in that car share's REST
 * cache once committed (`changed`), before the next batch.
 */
export function startSweeps(
  o: { db: Database; config: Config; clock: Clock; log: Logger; changed: Changed },
  everyMs?: number,
): Periodic[] {
  const { db, clock, log } = o;
  return [
    every(
      everyMs ?? SWEEP_MS,
      () => sweepVerificationExpiry(db.orm, clock, (carShareId) => o.changed('verifications', carShareId)),
      (err) => log.error({ err }, 'verification expiry sweep failed'),
    ),
    // Deleted car shares' rows (CONTRACT §23), should the purge begun at the deletion have been cut short.
    every(
      everyMs ?? SWEEP_MS,
      () => startPurge(db.orm, log),
      (err) => log.error({ err }, 'purge of deleted car shares failed'),
    ),
    // Every instance sweeps; SKIP LOCKED shares the work.
    startBookingTimers({
      orm: db.orm,
      clock,
      policy: bookingPolicy(o.config.BOOKING_LEAD_MINUTES),
      log,
      everyMs,
      moved: (carShareId) => o.changed('bookings', carShareId),
    }),
  ];
}
