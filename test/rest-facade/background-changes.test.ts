// CONTRACT §28: what the service changes by itself (the booking timers of §6, verification expiry, delivery outcomes)
// makes the cached GETs showing it stale at once, as a mutation would: not after their time to live (10 s here). The
// sweeps run every 50 ms on the test clock. A change is looked for in the database first; the cache is told right
// after the commit, so the GET may lag the row by that moment: it gets one second, a tenth of the entry's life.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../factories/accounts.js';
import { bookingRow, requestBooking, verifiedBorrower, world } from '../factories/bookings.js';
import { sql } from '../factories/cars.js';
import { verificationId, verificationRow } from '../factories/verifications.js';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';
import { type Reply, type RestEnv, startRest, useRest } from './support.js';

/** Waits until the background work has committed what `done` looks for. */
async function until(done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('the background work did not happen within 10 s');
    await sleep(10);
  }
}

/** The GET once it shows the change, asked again for up to a second; the last answer when it never does. */
async function freshWithin(ask: () => Promise<Reply>, shows: (r: Reply) => boolean): Promise<Reply> {
  const deadline = Date.now() + 1000;
  let r = await ask();
  while (!shows(r) && Date.now() < deadline) {
    await sleep(20);
    r = await ask();
  }
  return r;
}

describe('sweeps', () => {
  const env = useRest({ sweepEveryMs: 50 });

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
    const expired = await freshWithin(
      () => env.call('GET', path, { token }),
      (r) => r.json.Booking.State === 'Expired',
    );
    expect(expired.json.Booking).toMatchObject({
      State: 'Expired',
      ExpiredDateUtc: '2026-07-02T09:45:00.000Z',
    });
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
    const expired = await freshWithin(
      () => env.call('GET', path, { token }),
      (r) => r.json.Verification.Status === 'Expired',
    );
    expect(expired.json.Verification.Status).toBe('Expired');
  });
});

describe('delivery outcomes', () => {
  // Not emptied after it starts: the delivery worker holds the secrets' data key it read at start.
  let env: RestEnv;
  let rx: Receiver | undefined;
  beforeAll(async () => {
    env = await startRest({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, { webhooks: { pollMs: 50 } });
  });
  afterAll(async () => {
    await rx?.close();
    await env?.close();
  });

  it("a delivery's outcome shows at once in the cached GET of its subscription (its last success)", async () => {
    // The receiver takes half a second to answer: the subscription is read, and cached, meanwhile.
    rx = await startReceiver({ reply: () => ({ status: 200, delayMs: 500 }) });
    const token = env.tokenFor((await createUser(env.h)).actor);
    const created = await env.call('POST', '/api/webhooks/subscriptions', {
      token,
      body: { Name: 'Outcomes', Events: ['profile_update'], Config: { Url: `${rx.url}/hook` } },
    });
    const path = `/api/webhooks/subscriptions/${created.json.WebhookSubscriptions[0].Id}`;
    const test = await env.call('PUT', `${path}/test`, { token });
    const before = await env.call('GET', path, { token });
    expect(before.json.WebhookSubscription.LastSuccessDateUtc ?? null).toBeNull();

    const id = test.json.WebhookDelivery.Id;
    await until(
      async () =>
        (await sql<{ status: string }>(env.h, 'select status from webhook_delivery where id = ?', [id]))[0]
          ?.status === 'Succeeded',
    );
    const after = await freshWithin(
      () => env.call('GET', path, { token }),
      (r) => Boolean(r.json.WebhookSubscription.LastSuccessDateUtc),
    );
    expect(after.json.WebhookSubscription.LastSuccessDateUtc).toBeTruthy();
  });
});
