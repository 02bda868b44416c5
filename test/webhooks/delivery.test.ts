// Webhook delivery end to end on real PostgreSQL and real loopback receivers: the request of CONTRACT §8,
// signatures checked with the `standardwebhooks` library, fan-out visibility, retries, Retry-After, 410,
// redirects, timeouts, redelivery, rotation, deletion and the SSRF guard at connect time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/events/outbox.js';
import { systemClock } from '../../src/shared/clock.js';
import { loadCertificate } from '../../src/tls.js';
import { createUser, type TestUser } from '../factories/accounts.js';
import { bookingIn, world } from '../factories/bookings.js';
import { asOps } from '../support/actors.js';
import { waitFor } from '../support/wait.js';
import { type Receiver, type Reply, startReceiver } from './receiver.js';
import {
  CREATE,
  DELETE,
  DELIVERY,
  quiet,
  REDELIVER,
  ROTATE,
  type Runtime,
  rows,
  type S,
  SUBSCRIPTION,
  startRuntime,
  TEST,
  useWebhookHarness,
} from './support.js';

const h = useWebhookHarness({ allowPrivateTargets: true });
let rx: Receiver;
let runtime: Runtime | undefined;
beforeEach(async () => {
  rx = await startReceiver();
});
afterEach(async () => {
  await runtime?.stop();
  runtime = undefined;
  await rx.close();
});

const UPDATE_PROFILE = `mutation($id: UUID!, $input: UpdateProfileInput!) { updateProfile(id: $id, input: $input) { id } }`;

async function subscribe(actor: S, events: string[], url = `${rx.url}/hook`, extra: S = {}): Promise<S[]> {
  const d = await h.ok<{ createWebhookSubscriptions: S[] }>(actor as never, CREATE, {
    input: { name: 'Test subscription', events, config: { url, ...extra } },
  });
  return d.createWebhookSubscriptions;
}

const delivery = async (actor: S, id: string): Promise<S> =>
  (await h.ok<{ webhookDelivery: S }>(actor as never, DELIVERY, { id })).webhookDelivery;

const finalDelivery = (actor: S, id: string) =>
  waitFor(
    async () => {
      const d = await delivery(actor, id);
      return d.status !== 'Pending' ? d : undefined;
    },
    { what: `delivery ${id} to finish` },
  );

async function touchProfile(u: TestUser, description: string): Promise<void> {
  await h.ok(u.actor, UPDATE_PROFILE, { id: u.profileId, input: { description } });
}

/** Verifies with the reference library, as a receiver would (it throws on any mismatch). */
function verify(secret: string, r: { body: string; headers: S }): unknown {
  return new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
}

describe('the request (CONTRACT §8)', () => {
  it('POSTs the event body with every header, signed over the exact bytes, and logs the attempt', async () => {
    rx.reply = () => ({ status: 202, body: JSON.stringify({ received: true }), gzip: true });
    runtime = await startRuntime(h);
    const u = await createUser(h);
    const [s] = await subscribe(u.actor, ['profile_update']);
    await touchProfile(u, 'Likes long drives');
    const r = await waitFor(() => rx.requests[0], { what: 'the webhook' });
    expect(r.path).toBe('/hook');
    expect(r.headers).toMatchObject({
      accept: 'application/json',
      'content-type': 'application/json',
      'accept-encoding': 'gzip,deflate',
      'x-webhook-event': 'profile_update',
      'content-length': String(Buffer.byteLength(r.body)),
    });
    expect(r.headers['x-webhook-subscription-id']).toBe(s!.id);
    expect(r.headers['user-agent']).toMatch(/^Carshare-Webhooks\/\d+\.\d+\.\d+/);
    expect(r.deliveryId).toMatch(/^[0-9a-f]{32}$/);
    expect(r.headers['webhook-id']).toBe(r.deliveryId);
    expect(String(r.headers['request-id'])).toMatch(/^\|[0-9a-f]{32}\.[0-9a-f]{16}\.$/);
    expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
    expect(String(r.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const body = verify(s!.secret, r) as S;
    expect(body).toEqual({
      Name: 'profile_update',
      OccurredDateUtc: h.clock.now().toISOString(),
      CarShareId: h.carShare.id,
      Id: u.profileId,
      UserId: u.id,
      ChangedFields: ['Description'],
    });
    expect(Object.keys(body).slice(0, 4)).toEqual(['Name', 'OccurredDateUtc', 'CarShareId', 'Id']);
    // One flipped byte no longer verifies.
    expect(() => verify(s!.secret, { ...r, body: r.body.replace('Description', 'Descriptiom') })).toThrow();
    const d = await finalDelivery(u.actor, r.deliveryId);
    expect(d).toMatchObject({
      status: 'Succeeded',
      event: 'profile_update',
      subscriptionId: s!.id,
      payload: body,
    });
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({
      statusCode: 202,
      error: null,
      trigger: 'Scheduled',
      requestId: r.headers['request-id'],
      responseBody: '{"received":true}',
    });
    const sub = (await h.ok<S>(u.actor, SUBSCRIPTION, { id: s!.id })).webhookSubscription;
    expect(sub.lastSuccessDateUtc).not.toBeNull();
  });

  it('stops gracefully: an attempt in flight finishes and is recorded before stop() resolves', async () => {
    rx.reply = () => ({ status: 200, delayMs: 300 });
    runtime = await startRuntime(h);
    const u = await createUser(h);
    await subscribe(u.actor, ['profile_update']);
    await touchProfile(u, 'in flight');
    const id = (await waitFor(() => rx.requests[0])).deliveryId;
    await runtime.stop();
    runtime = undefined;
    const [d] = await rows(h, 'select status, locked_by from webhook_delivery where id = ?', [id]);
    expect(d).toEqual({ status: 'Succeeded', locked_by: null });
  });

  it("delivers over https to a receiver with the service's self-signed certificate once it is trusted", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'carshare-rx-'));
    const tls = await loadCertificate({ dataDir: dir, certFile: undefined, keyFile: undefined });
    const secure = await startReceiver({ tls: { key: tls.key, cert: tls.cert } });
    try {
      runtime = await startRuntime(h, { ca: tls.cert });
      const u = await createUser(h);
      const [s] = await subscribe(u.actor, ['profile_update'], `https://localhost:${secure.port}/tls`);
      await touchProfile(u, 'over tls');
      const r = await waitFor(() => secure.requests[0], { what: 'the https delivery' });
      expect(verify(s!.secret, r)).toMatchObject({ Name: 'profile_update', UserId: u.id });
    } finally {
      await secure.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sends a webhook_test through the same pipeline', async () => {
    runtime = await startRuntime(h);
    const u = await createUser(h);
    const [s] = await subscribe(u.actor, ['carbooking_approve']);
    const t = (await h.ok<S>(u.actor, TEST, { id: s!.id })).testWebhookSubscription;
    const r = await waitFor(() => rx.requests[0], { what: 'the test event' });
    expect(r.deliveryId).toBe(t.id);
    expect(r.headers['x-webhook-event']).toBe('webhook_test');
    expect(verify(s!.secret, r)).toEqual({
      Name: 'webhook_test',
      OccurredDateUtc: t.payload.OccurredDateUtc,
      CarShareId: h.carShare.id,
      SubscriptionId: s!.id,
    });
  });
});

describe('who receives what', () => {
  it("a user's subscription gets events about themselves only; ops' and client applications' get every event", async () => {
    runtime = await startRuntime(h);
    const [a, b] = [await createUser(h), await createUser(h)];
    const [mine] = await subscribe(a.actor, ['profile_update'], `${rx.url}/a`);
    const [all] = await subscribe(asOps(), ['profile_update'], `${rx.url}/ops`);
    await touchProfile(b, 'B changed');
    await touchProfile(a, 'A changed');
    await waitFor(() => rx.requests.length >= 3, { what: 'three deliveries' });
    await quiet(h);
    const seen = rx.requests.map((r) => [r.path, (JSON.parse(r.body) as S).UserId]);
    expect(seen.filter(([p]) => p === '/a')).toEqual([['/a', a.id]]);
    expect(
      seen
        .filter(([p]) => p === '/ops')
        .map(([, id]) => id)
        .sort(),
    ).toEqual([a.id, b.id].sort());
    expect(rx.requests.filter((r) => r.path === '/a').every((r) => verify(mine!.secret, r))).toBe(true);
    expect(rx.requests.filter((r) => r.path === '/ops').every((r) => verify(all!.secret, r))).toBe(true);
  });

  it("a user's carbooking_approve subscription receives their own bookings' approvals only", async () => {
    runtime = await startRuntime(h);
    const w1 = await world(h);
    const w2 = await world(h);
    const [borrowerSub] = await subscribe(w1.borrower.actor, ['carbooking_approve'], `${rx.url}/borrower`);
    await subscribe(w1.owner.actor, ['carbooking_approve'], `${rx.url}/owner`);
    const mine = await bookingIn(h, w1, 'Approved');
    const theirs = await bookingIn(h, w2, 'Approved');
    await waitFor(() => rx.requests.length >= 2, { what: 'the approvals' });
    await quiet(h);
    const byPath = (p: string) =>
      rx.requests.filter((r) => r.path === p).map((r) => (JSON.parse(r.body) as S).Id);
    expect(byPath('/borrower')).toEqual([mine.id]);
    expect(byPath('/owner')).toEqual([mine.id]);
    expect(byPath('/borrower')).not.toContain(theirs.id);
    const r = rx.requests.find((x) => x.path === '/borrower')!;
    expect(verify(borrowerSub!.secret, r)).toMatchObject({
      Name: 'carbooking_approve',
      State: 'Approved',
      BorrowerId: w1.borrower.id,
    });
  });

  it('an event rolled back with its change is never sent', async () => {
    runtime = await startRuntime(h);
    const u = await createUser(h);
    await subscribe(asOps(), ['profile_update']);
    await h.orm.em
      .fork()
      .transactional(async (em) => {
        recordEvent(
          { em, clock: systemClock },
          'profile_update',
          { id: u.profileId, userId: u.id, changedFields: ['X'] },
          [u.id],
        );
        await em.flush();
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await touchProfile(u, 'committed');
    await waitFor(() => rx.requests.length >= 1);
    await quiet(h);
    expect(rx.requests.map((r) => (JSON.parse(r.body) as S).ChangedFields)).toEqual([['Description']]);
  });
});

describe('outcomes', () => {
  it('retries failures with the same delivery id, a new Request-Id and a fresh valid signature each time', async () => {
    rx.reply = (_r, n) => (n <= 2 ? { status: 500, body: 'boom' } : { status: 200 });
    runtime = await startRuntime(h);
    const u = await createUser(h);
    const [s] = await subscribe(u.actor, ['profile_update']);
    await touchProfile(u, 'retry me');
    await waitFor(() => rx.requests.length >= 3, { what: 'three attempts' });
    const ids = new Set(rx.requests.map((r) => r.deliveryId));
    expect(ids.size).toBe(1);
    expect(new Set(rx.requests.map((r) => r.headers['request-id'])).size).toBe(3);
    for (const r of rx.requests) verify(s!.secret, r);
    expect(new Set(rx.requests.map((r) => r.body)).size).toBe(1);
    const d = await finalDelivery(u.actor, [...ids][0]!);
    expect(d.status).toBe('Succeeded');
    expect(d.attempts.map((a: S) => [a.statusCode, a.error, a.trigger])).toEqual([
      [500, 'HTTP 500', 'Scheduled'],
      [500, 'HTTP 500', 'Scheduled'],
      [200, null, 'Scheduled'],
    ]);
    expect(d.attempts.map((a: S) => a.requestId)).toEqual(rx.requests.map((r) => r.headers['request-id']));
    expect(d.attempts[0].responseBody).toBe('boom');
  });

  it('keeps at most 64 KiB of a response body', async () => {
    rx.reply = () => ({ status: 200, body: 'x'.repeat(200 * 1024), gzip: true });
    runtime = await startRuntime(h);
    const u = await createUser(h);
    await subscribe(u.actor, ['profile_update']);
    await touchProfile(u, 'big answer');
    const d = await finalDelivery(u.actor, (await waitFor(() => rx.requests[0])).deliveryId);
    expect(d.status).toBe('Succeeded');
    expect(d.attempts[0].responseBody).toBe('x'.repeat(64 * 1024));
  });

  it('exhausts the schedule into Failed; a redelivery is one more attempt with the same id and a fresh signature', async () => {
    rx.reply = () => ({ status: 503 });
    runtime = await startRuntime(h, { retryScheduleMs: [10, 10] });
    const u = await createUser(h);
    const [s] = await subscribe(u.actor, ['profile_update']);
    await touchProfile(u, 'never works');
    const id = (await waitFor(() => rx.requests[0])).deliveryId;
    const failed = await finalDelivery(u.actor, id);
    expect(failed.status).toBe('Failed');
    expect(failed.attempts).toHaveLength(3);
    expect(failed.nextAttemptDateUtc).toBeNull();
    // A failing manual attempt schedules nothing more.
    await h.ok(u.actor, REDELIVER, { id });
    await waitFor(async () => (await delivery(u.actor, id)).attempts.length === 4);
    expect((await finalDelivery(u.actor, id)).status).toBe('Failed');
    await quiet(h);
    expect(rx.requests).toHaveLength(4);
    rx.reply = () => ({ status: 200 });
    const before = Number(rx.requests[3]!.headers['webhook-timestamp']);
    // Webhook-Timestamp counts whole seconds: the next attempt must be in a later one to show a fresh signature.
    await waitFor(() => Math.floor(Date.now() / 1000) > before, { what: 'the next second' });
    await h.ok(u.actor, REDELIVER, { id });
    const ok = await waitFor(async () => {
      const d = await delivery(u.actor, id);
      return d.status === 'Succeeded' ? d : undefined;
    });
    expect(ok.attempts.map((a: S) => a.trigger)).toEqual([
      'Scheduled',
      'Scheduled',
      'Scheduled',
      'Manual',
      'Manual',
    ]);
    const last = rx.requests[4]!;
    expect(last.deliveryId).toBe(id);
    expect(Number(last.headers['webhook-timestamp'])).toBeGreaterThan(before);
    expect(last.headers['webhook-signature']).not.toBe(rx.requests[3]!.headers['webhook-signature']);
    verify(s!.secret, last);
    expect(errorOf2(await h.run(u.actor, REDELIVER, { id: 'not-hex' }))).toBe('InvalidFormat');
  });

  it('410 Gone disables the subscription after one attempt; later events are Skipped and never sent', async () => {
    rx.reply = () => ({ status: 410 });
    runtime = await startRuntime(h);
    const u = await createUser(h);
    const [s] = await subscribe(u.actor, ['profile_update']);
    await touchProfile(u, 'first');
    const id = (await waitFor(() => rx.requests[0])).deliveryId;
    const d = await finalDelivery(u.actor, id);
    expect(d.status).toBe('Failed');
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0].statusCode).toBe(410);
    const sub = (await h.ok<S>(u.actor, SUBSCRIPTION, { id: s!.id })).webhookSubscription;
    expect(sub).toMatchObject({ isActive: false, disabledReason: 'Gone', consecutiveFailures: 1 });
    await touchProfile(u, 'second');
    await waitFor(
      async () => (await rows(h, `select id from webhook_delivery where status = 'Skipped'`)).length === 1,
    );
    await quiet(h);
    expect(rx.requests).toHaveLength(1);
  });

  it('honours Retry-After: 2 on a 503', async () => {
    rx.reply = (_r, n) => (n === 1 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 200 });
    runtime = await startRuntime(h, { retryScheduleMs: [50] });
    const u = await createUser(h);
    await subscribe(u.actor, ['profile_update']);
    await touchProfile(u, 'later please');
    await waitFor(() => rx.requests.length >= 2, { timeoutMs: 8000, what: 'the retry' });
    const gap = rx.requests[1]!.at - rx.requests[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(2000);
    expect(gap).toBeLessThan(3500);
  });

  it.each<[string, Reply, RegExp]>([
    ['a hang past the deadline', 'hang', /^Timeout/],
    ['a reset connection', 'reset', /^(ECONNRESET|UND_ERR_SOCKET)/],
    [
      'a redirect (never followed)',
      { status: 302, headers: { location: '/elsewhere' } },
      /^HTTP 302: redirects/,
    ],
  ])('counts %s as a failure and retries it', async (_what, reply, error) => {
    rx.reply = (_r, n) => (n === 1 ? reply : { status: 200 });
    runtime = await startRuntime(h, { timeoutMs: 400 });
    const u = await createUser(h);
    await subscribe(u.actor, ['profile_update']);
    await touchProfile(u, 'faulty');
    const id = (await waitFor(() => rx.requests[0])).deliveryId;
    const d = await waitFor(async () => {
      const x = await delivery(u.actor, id);
      return x.status === 'Succeeded' ? x : undefined;
    });
    expect(d.attempts).toHaveLength(2);
    expect(d.attempts[0].error).toMatch(error);
    if (reply === 'hang') {
      expect(d.attempts[0].statusCode).toBeNull();
      expect(d.attempts[0].durationMs).toBeGreaterThanOrEqual(390);
      expect(d.attempts[0].durationMs).toBeLessThan(1500);
    }
    expect(rx.requests.map((r) => r.path)).toEqual(['/hook', '/hook']);
  });

  it('disables a subscription whose deliveries only failed for the whole window (Failing)', async () => {
    rx.reply = () => ({ status: 500 });
    runtime = await startRuntime(h, {
      retryScheduleMs: [100, 100, 100, 100, 100, 100],
      failingWindowMs: 350,
    });
    const u = await createUser(h);
    const [s] = await subscribe(u.actor, ['profile_update']);
    await touchProfile(u, 'failing');
    const sub = await waitFor(async () => {
      const x = (await h.ok<S>(u.actor, SUBSCRIPTION, { id: s!.id })).webhookSubscription;
      return x.isActive ? undefined : x;
    });
    expect(sub.disabledReason).toBe('Failing');
    // The rule is time alone: the failure that opened the window and one at least 350 ms later. How many fell
    // between depends on how busy the machine is.
    expect(sub.consecutiveFailures).toBeGreaterThanOrEqual(2);
    const [d] = await rows(h, 'select status from webhook_delivery');
    expect(d!.status).toBe('Skipped');
  });
});

describe('rotation and deletion', () => {
  it('signs with both secrets after a rotation, each verifying on its own', async () => {
    runtime = await startRuntime(h);
    const u = await createUser(h);
    const [s] = await subscribe(u.actor, ['profile_update']);
    const rotated = (await h.ok<S>(u.actor, ROTATE, { id: s!.id })).rotateWebhookSubscriptionSecret;
    await touchProfile(u, 'rotated');
    const r = await waitFor(() => rx.requests[0]);
    const sigs = String(r.headers['webhook-signature']).split(' ');
    expect(sigs).toHaveLength(2);
    for (const [secret, sig] of [
      [rotated.secret, sigs[0]],
      [s!.secret, sigs[1]],
    ])
      verify(secret, { ...r, headers: { ...r.headers, 'webhook-signature': sig } });
    // Once the overlap ends only the new secret signs. (The change is announced in its transaction, as the
    // service announces its own: the workers' cache of targets hears it.)
    await rows(
      h,
      `with u as (update webhook_subscription set previous_secret_expires_date_utc = now() - interval '1 second'
        returning id) select pg_notify('carshare_webhook_subscription', id::text) from u`,
    );
    await touchProfile(u, 'rotated again');
    const r2 = await waitFor(() => rx.requests[1]);
    expect(String(r2.headers['webhook-signature']).split(' ')).toHaveLength(1);
    verify(rotated.secret, r2);
    expect(() => verify(s!.secret, r2)).toThrow();
  });

  it('a deleted subscription receives nothing after its delete has answered, even with an attempt in flight', async () => {
    rx.reply = () => ({ status: 500, delayMs: 400 });
    runtime = await startRuntime(h, { retryScheduleMs: [30, 30, 30, 30, 30, 30, 30, 30] });
    const u = await createUser(h);
    const [s] = await subscribe(u.actor, ['profile_update']);
    await touchProfile(u, 'doomed');
    await waitFor(() => rx.requests[0]);
    await h.ok(u.actor, DELETE, { id: s!.id });
    const seen = rx.requests.length;
    await touchProfile(u, 'after the delete');
    await quiet(h);
    expect(rx.requests).toHaveLength(seen);
    const statuses = await rows(h, 'select status from webhook_delivery');
    expect(statuses.map((x) => x.status)).toEqual(['Cancelled']);
  });
});

describe('the SSRF guard at connect time', () => {
  it('retries a name that does not resolve (a DNS error is not a blocked target)', async () => {
    runtime = await startRuntime(h, {
      allowPrivateTargets: false,
      retryScheduleMs: [10],
      lookup: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' });
      },
    });
    const u = await createUser(h);
    const [s] = await subscribe(u.actor, ['profile_update']);
    await rows(h, 'update webhook_subscription set url = ? where id = ?', [
      'https://nowhere.example/hook',
      s!.id,
    ]);
    const t = (await h.ok<S>(u.actor, TEST, { id: s!.id })).testWebhookSubscription;
    const d = await finalDelivery(u.actor, t.id);
    expect(d.status).toBe('Failed');
    expect(d.attempts.map((a: S) => a.error)).toEqual([
      expect.stringMatching(/^ENOTFOUND/),
      expect.stringMatching(/^ENOTFOUND/),
    ]);
  });

  it.each([
    ['a loopback address', (port: number) => `https://127.0.0.1:${port}/hook`],
    ['IPv6 loopback', (port: number) => `https://[::1]:${port}/hook`],
    ['the unspecified address', (port: number) => `https://0.0.0.0:${port}/hook`],
    ['a private address', () => 'https://10.0.0.1/hook'],
    ['the metadata address', () => 'https://169.254.169.254/latest'],
    ['a name resolving to loopback', (port: number) => `https://rebound.example:${port}/hook`],
    ['plain http', (port: number) => `http://127.0.0.1:${port}/hook`],
  ])('refuses %s: Failed with a blocked reason, nothing dialled', async (_what, urlOf) => {
    runtime = await startRuntime(h, {
      allowPrivateTargets: false,
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const u = await createUser(h);
    // The row says what the guard at subscribe time would refuse (as if DNS changed, or the row was tampered with).
    const [s] = await subscribe(u.actor, ['profile_update']);
    await rows(h, 'update webhook_subscription set url = ? where id = ?', [urlOf(rx.port), s!.id]);
    const t = (await h.ok<S>(u.actor, TEST, { id: s!.id })).testWebhookSubscription;
    const d = await finalDelivery(u.actor, t.id);
    expect(d.status).toBe('Failed');
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0].error).toMatch(/^Blocked: /);
    expect(rx.connections).toBe(0);
  });
});

function errorOf2(r: { errors?: { extensions?: { code?: string } }[] }): string | undefined {
  return r.errors?.[0]?.extensions?.code;
}
