// The claim: each due delivery goes to one holder at a time; a lease that runs out (a dead worker) makes it
// claimable again, and the old holder can no longer write its outcome.
import { expect, it } from 'vitest';
import {
  claimDue,
  deleteFinishedBefore,
  recordAttempt,
  releaseClaims,
} from '../../src/delivery/delivery.store.js';
import { decide } from '../../src/delivery/outcome.js';
import type { AttemptResult } from '../../src/delivery/send.js';
import { createUser } from '../factories/accounts.js';
import { scoped } from '../support/scope.js';
import { CREATE, rows, type S, TEST, useWebhookHarness } from './support.js';

const h = useWebhookHarness();

const ok: AttemptResult = {
  kind: 'response',
  statusCode: 200,
  retryAfter: null,
  body: '',
  requestId: 'r',
  durationMs: 3,
};

it('gives a due delivery to one claimer; after the lease it goes to another, and the first cannot record', async () => {
  const u = await createUser(h);
  const [s] = (
    await h.ok<{ createWebhookSubscriptions: S[] }>(u.actor, CREATE, {
      input: { name: 'Leased', events: ['profile_update'], config: { url: 'http://127.0.0.1:9/x' } },
    })
  ).createWebhookSubscriptions;
  for (let i = 0; i < 5; i++) await h.ok(u.actor, TEST, { id: s!.id });
  const now = new Date(h.clock.now().getTime() + 1000);
  const [first, second] = await Promise.all([
    claimDue(scoped(h.orm), { now, leaseMs: 60_000, limit: 3 }),
    claimDue(scoped(h.orm), { now, leaseMs: 60_000, limit: 3 }),
  ]);
  const ids = [...first!, ...second!].map((c) => c.id);
  expect(ids).toHaveLength(5);
  expect(new Set(ids).size).toBe(5);
  expect(await claimDue(scoped(h.orm), { now, leaseMs: 60_000, limit: 10 })).toEqual([]);

  const later = new Date(now.getTime() + 61_000);
  const stolen = await claimDue(scoped(h.orm), { now: later, leaseMs: 60_000, limit: 10 });
  expect(stolen.map((c) => c.id).sort()).toEqual([...ids].sort());
  const old = first![0]!;
  const record = (claimed: typeof old) =>
    recordAttempt(scoped(h.orm), {
      claimed,
      result: ok,
      outcome: decide(ok, claimed, later, { retryScheduleMs: [1], random: Math.random }),
      trigger: 'Scheduled',
      url: 'http://127.0.0.1:9/x',
      attemptedAt: later,
      now: later,
      failingWindowMs: 1000,
    });
  expect(await record(old)).toBe(false);
  expect((await rows(h, 'select status from webhook_delivery where id = ?', [old.id]))[0]!.status).toBe(
    'Pending',
  );
  expect(await record(stolen.find((c) => c.id === old.id)!)).toBe(true);
  const [d] = await rows(h, 'select status, locked_by from webhook_delivery where id = ?', [old.id]);
  expect(d).toEqual({ status: 'Succeeded', locked_by: null });
  // Both attempts happened, so both are in the log.
  expect(
    await rows(h, 'select number from webhook_attempt where delivery_id = ? order by number', [old.id]),
  ).toEqual([{ number: 1 }, { number: 2 }]);
});

it('hands back claims never started (a stopping worker): due at once for another claim, and only by their holder', async () => {
  const u = await createUser(h);
  const [s] = (
    await h.ok<{ createWebhookSubscriptions: S[] }>(u.actor, CREATE, {
      input: { name: 'Handed back', events: ['profile_update'], config: { url: 'http://127.0.0.1:9/x' } },
    })
  ).createWebhookSubscriptions;
  for (let i = 0; i < 3; i++) await h.ok(u.actor, TEST, { id: s!.id });
  const now = new Date(h.clock.now().getTime() + 1000);
  const held = await claimDue(scoped(h.orm), { now, leaseMs: 60_000, limit: 10 });
  expect(held).toHaveLength(3);
  // A token that no longer holds the lease hands back nothing.
  await releaseClaims(scoped(h.orm), [{ ...held[0]!, token: 'not the holder' }]);
  expect(await claimDue(scoped(h.orm), { now, leaseMs: 60_000, limit: 10 })).toEqual([]);
  await releaseClaims(scoped(h.orm), held.slice(0, 2));
  const again = await claimDue(scoped(h.orm), { now, leaseMs: 60_000, limit: 10 });
  expect(again.map((c) => c.id).sort()).toEqual(
    held
      .slice(0, 2)
      .map((c) => c.id)
      .sort(),
  );
  const [d] = await rows(h, 'select status, attempt_count from webhook_delivery where id = ?', [held[0]!.id]);
  expect(d).toEqual({ status: 'Pending', attempt_count: 0 });
});

it('keeps finished deliveries 30 days: the sweep removes only finished ones older than the cut-off', async () => {
  const u = await createUser(h);
  const [s] = (
    await h.ok<{ createWebhookSubscriptions: S[] }>(u.actor, CREATE, {
      input: { name: 'Retained', events: ['profile_update'], config: { url: 'http://127.0.0.1:9/x' } },
    })
  ).createWebhookSubscriptions;
  for (let i = 0; i < 3; i++) await h.ok(u.actor, TEST, { id: s!.id });
  const ids = (await rows(h, 'select id from webhook_delivery order by id')).map((r) => r.id as string);
  await rows(
    h,
    `update webhook_delivery set status = 'Failed', last_modified_date_utc = now() - interval '31 days' where id = ?`,
    [ids[0]],
  );
  await rows(
    h,
    `update webhook_delivery set status = 'Failed', last_modified_date_utc = now() - interval '29 days' where id = ?`,
    [ids[1]],
  );
  await rows(
    h,
    `update webhook_delivery set last_modified_date_utc = now() - interval '40 days' where id = ?`,
    [ids[2]],
  );
  const cutoff = new Date(Date.now() - 30 * 24 * 3600 * 1000);
  expect(await deleteFinishedBefore(scoped(h.orm), cutoff)).toBe(1);
  expect((await rows(h, 'select id from webhook_delivery order by id')).map((r) => r.id)).toEqual([
    ids[1],
    ids[2],
  ]);
});
