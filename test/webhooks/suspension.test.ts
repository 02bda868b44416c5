// Webhook deliveries of a suspended car share (CONTRACT §23): none is attempted, not even when the event committed
// meanwhile wakes the worker by name; the events are still recorded and their deliveries wait Pending with their
// Ids, then go out within seconds of reactivation. Suspended time counts toward neither the retry schedule nor the
// 5-day Failing rule: a retry waits, after reactivation, what it had left, and a failing streak's start moves on.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUserFromCli } from '../../src/accounts/user-account.cli.js';
import { reactivateCarShare, suspendCarShare } from '../../src/carshares/car-share.lifecycle.js';
import { startTwoCarShares, type TwoCarShares } from '../oauth/two-car-shares.js';
import { waitFor } from '../support/wait.js';
import { type Receiver, startReceiver } from './receiver.js';

const PLATFORM = { actorType: 'Platform' } as const;
const HOUR = 3600_000;

let t: TwoCarShares;
let rx: Receiver;
let subscriptionId: string;

beforeAll(async () => {
  rx = await startReceiver();
  t = await startTwoCarShares(
    { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    // Retries a minute apart: a failed first attempt leaves its delivery Pending with a retry to come. No poll
    // within a test: deliveries are found through the wakes alone (the relay's, naming the car share of a new
    // event, and reactivation's), the way that bypasses the poll's look at which car shares are Active.
    { pollMs: 600_000, allowPrivateTargets: true, retryScheduleMs: [60_000, 60_000, 60_000] },
  );
  const token = await t.opsToken('B', 'ops');
  const r = await t.B.fetch('/api/webhooks/subscriptions', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: JSON.stringify({
      Name: 'New accounts',
      Events: ['useraccount_create'],
      Config: { Url: `${rx.url}/hook` },
    }),
  });
  expect(r.status, await r.clone().text()).toBe(201);
  const body = (await r.json()) as {
    WebhookSubscriptions?: { Id: string }[];
    WebhookSubscription?: { Id: string };
  };
  subscriptionId = (body.WebhookSubscriptions?.[0] ?? body.WebhookSubscription)!.Id;
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
});
beforeEach(() => {
  rx.requests.length = 0;
  rx.reply = () => ({ status: 200, body: 'ok' });
});

/** An event in B raised while no request can reach it: an account made at the console (`create-user`). */
async function accountMadeInB(): Promise<string> {
  const made = await createUserFromCli(
    t.s.service.db,
    [
      '--username',
      `held.${Date.now()}.${Math.random().toString(36).slice(2)}@example.com`,
      '--password',
      'a long and unusual passphrase',
    ],
    { id: t.bId, isDefault: false },
  );
  return made.Id;
}

interface DeliveryRow {
  id: string;
  status: string;
  attempt_count: number;
  next_attempt_date_utc: Date | null;
}

const deliveryOf = async (accountId: string): Promise<DeliveryRow | undefined> =>
  (
    await t.sql<DeliveryRow>(
      `select d.id, d.status, d.attempt_count, d.next_attempt_date_utc from webhook_delivery d
        join outbox_event o on o.car_share_id = d.car_share_id and o.id = d.event_id
       where d.car_share_id = ? and o.payload::text like ?`,
      [t.bId, `%${accountId}%`],
    )
  )[0];

describe('while a car share is suspended', () => {
  it('attempts none of its deliveries, though its events are recorded; reactivation sends them, Ids kept', async () => {
    await suspendCarShare(t.s.service.db.orm, t.bId, null, PLATFORM, new Date());
    const accountId = await accountMadeInB();
    // The relay fans the event out (and wakes the worker, naming B): the delivery exists and waits.
    const held = await waitFor(async () => deliveryOf(accountId), { what: 'the delivery to be recorded' });
    await new Promise((ok) => setTimeout(ok, 1500));
    expect(rx.requests).toHaveLength(0);
    expect((await deliveryOf(accountId))?.status).toBe('Pending');

    const reactivated = Date.now();
    await reactivateCarShare(t.s.service.db.orm, t.bId, PLATFORM, new Date());
    await waitFor(() => rx.requests.length > 0, { what: 'the held delivery to be sent', timeoutMs: 20_000 });
    expect(Date.now() - reactivated).toBeLessThan(60_000);
    expect(rx.requests[0]?.body).toContain(accountId);
    expect((await deliveryOf(accountId))?.id.trim()).toBe(held.id.trim());
    await waitFor(async () => (await deliveryOf(accountId))?.status === 'Succeeded', { what: 'its success' });
  });

  it('counts toward neither the retry schedule nor the Failing rule', async () => {
    rx.reply = () => ({ status: 500 });
    const accountId = await accountMadeInB();
    const failed = await waitFor(
      async () => {
        const d = await deliveryOf(accountId);
        return d && d.attempt_count === 1 && d.status === 'Pending' ? d : undefined;
      },
      { what: 'a failed first attempt' },
    );
    const [before] = await t.sql<{ failing_since_date_utc: Date }>(
      'select failing_since_date_utc from webhook_subscription where car_share_id = ? and id = ?',
      [t.bId, subscriptionId],
    );
    expect(before?.failing_since_date_utc).toBeTruthy();

    // Suspended for an hour (as the platform dates it): the retry still has its minute to wait after it.
    const now = Date.now();
    await suspendCarShare(t.s.service.db.orm, t.bId, null, PLATFORM, new Date(now - HOUR));
    await reactivateCarShare(t.s.service.db.orm, t.bId, PLATFORM, new Date(now));
    const after = await deliveryOf(accountId);
    expect(after?.status).toBe('Pending');
    expect(after?.attempt_count).toBe(1);
    expect(
      new Date(after!.next_attempt_date_utc!).getTime() - new Date(failed.next_attempt_date_utc!).getTime(),
    ).toBe(HOUR);
    const [moved] = await t.sql<{ failing_since_date_utc: Date }>(
      'select failing_since_date_utc from webhook_subscription where car_share_id = ? and id = ?',
      [t.bId, subscriptionId],
    );
    expect(
      new Date(moved!.failing_since_date_utc).getTime() - new Date(before!.failing_since_date_utc).getTime(),
    ).toBe(HOUR);
  });
});
