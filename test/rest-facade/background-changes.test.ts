// CONTRACT §28: what the service changes by itself (the booking timers of §6, verification expiry) makes the cached
// GETs showing it stale at once, as a mutation would: not after their time to live. The sweeps run here every 50 ms
// on the test clock; a change is looked for in the database, then the cached GET must show it.
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { bookingRow, requestBooking, verifiedBorrower, world } from '../factories/bookings.js';
import { sql } from '../factories/cars.js';
import { verificationId, verificationRow } from '../factories/verifications.js';
import { useRest } from './support.js';

const env = useRest({ sweepEveryMs: 50 });

/** Waits until the sweep has committed what `done` looks for (the cache is told right after the commit). */
async function until(done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('the sweep did not run within 10 s');
    await sleep(10);
  }
}

it('a booking request the timers expire shows Expired at once in the GET that had it Pending', async () => {
  const w = await world(env.h);
  const b = await requestBooking(env.h, w, 24, 26);
  const token = env.tokenFor(w.borrower.actor);
  const path = `/api/bookings/${b.id}`;
  const pending = await env.call('GET', path, { token });
  expect(pending.json.Booking.State).toBe('Pending');
  // An undecided request expires at start − 15 minutes (CONTRACT §6).
  env.h.clock.set('2026-07-02T09:45:00.000Z');
  await until(async () => (await bookingRow(env.h, b.id)).state === 'Expired');
  const expired = await env.call('GET', path, { token });
  expect(expired.json.Booking).toMatchObject({
    State: 'Expired',
    ExpiredDateUtc: '2026-07-02T09:45:00.000Z',
  });
  expect(expired.headers.get('etag')).not.toBe(pending.headers.get('etag'));
  // A revalidation with the old tag is no 304 either.
  const revalidated = await env.call('GET', path, {
    token,
    headers: { 'If-None-Match': pending.headers.get('etag')! },
  });
  expect(revalidated.status).toBe(200);
});

it('a verification that expires shows Expired at once in the GET that had it Verified', async () => {
  await env.h.reset();
  const u = await verifiedBorrower(env.h);
  const id = await verificationId(env.h, u.id, 'DriversLicense');
  await sql(env.h, 'update verification set expires_date_utc = ? where id = ?', [
    '2026-07-03T00:00:00.000Z',
    id,
  ]);
  const token = env.tokenFor(u.actor);
  const path = `/api/verifications/${id}`;
  const verified = await env.call('GET', path, { token });
  expect(verified.json.Verification.Status).toBe('Verified');

  env.h.clock.set('2026-07-03T00:00:01.000Z');
  await until(async () => (await verificationRow(env.h, id)).status === 'Expired');
  const expired = await env.call('GET', path, { token });
  expect(expired.json.Verification.Status).toBe('Expired');
});
