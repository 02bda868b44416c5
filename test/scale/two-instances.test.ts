// CONTRACT §12 on loopback: two real instances (`src/main.ts`) on one PostgreSQL and one Redis. Nothing correct
// depends on which instance a request lands on: one rate limit, one cache, one event stream, one token store;
// webhook delivery and the booking timers shared between them with each unit of work done once; and /metrics
// counts what each instance did.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { recordEvent } from '../../src/events/outbox.js';
import { systemClock } from '../../src/shared/clock.js';
import { seedBookings, world } from '../factories/bookings.js';
import { useHarness } from '../support/harness.js';
import { parseMetrics } from '../support/metrics.js';
import { scoped } from '../support/scope.js';
import { waitFor } from '../support/wait.js';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';
import { mark } from '../webhooks/support.js';
import {
  type App,
  call,
  clientApp,
  describeWithRedis,
  type Instance,
  metric,
  REDIS_URL,
  redisProblem,
  removeInstanceDirs,
  revoke,
  startInstance,
  subscriber,
  tokenFrom,
} from './support.js';

const PER_MINUTE = 50;
const EVENTS = 1000;
const NO_SHOWS = 30;
const ENV = {
  REDIS_URL,
  OPS_EMAIL: 'ops@example.com',
  OPS_PASSWORD: 'operator passphrase for tests',
  LOG_LEVEL: 'info',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_TIMEOUT_MS: '2000',
  // Immediate retries: a 10 % failure rate never exhausts a delivery (0.1^9).
  WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0,0,0,0',
  RATE_LIMIT_PER_MINUTE: String(PER_MINUTE),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
  RATE_LIMIT_AUTH_PER_MINUTE: '100000',
};
const HOOKS = ['webhooks:read', 'webhooks:write'];

const problem = await redisProblem();

describeWithRedis('two instances on one PostgreSQL and one Redis', problem, () => {
  const h = useHarness({ resetEach: false });
  let rx: Receiver;
  let a: Instance;
  let b: Instance;
  let hooks: App;
  let hooksToken: string;
  let bookingIds: string[];

  beforeAll(async () => {
    // Approved bookings that ended days ago: no-shows the timers of both instances will find due at once.
    const w = await world(h);
    bookingIds = await seedBookings(
      h,
      w,
      NO_SHOWS,
      'Approved',
      new Date(Date.now() - 4 * 24 * 3600_000).toISOString(),
    );
    rx = await startReceiver({ reply: (_, n) => (n % 10 === 0 ? { status: 500 } : { status: 200 }) });
    [a, b] = await Promise.all([startInstance('a', ENV), startInstance('b', ENV)]);
    // Subscriptions made through B before the first timer sweep (15 s after start) can fan out its events.
    hooks = await clientApp(h, HOOKS);
    hooksToken = await tokenFrom(b, hooks, HOOKS);
    const created = await call(b, 'POST', '/api/webhooks/subscriptions', {
      token: hooksToken,
      body: {
        Name: 'Everything we test',
        Events: ['profile_update', 'carbooking_complete', 'useraccount_create'],
        Config: { Url: `${rx.url}/hook` },
      },
    });
    expect(created.status).toBe(201);
  });

  afterAll(async () => {
    for (const i of [a, b]) await i?.proc.stop('SIGKILL');
    await rx?.close();
    removeInstanceDirs();
  });

  const ok = (r: { status: number }) => r.status >= 200 && r.status < 300;

  it('limits one caller as one across both instances: the sum allowed is exactly the limit', async () => {
    const app = await clientApp(h, ['reports:read']);
    const token = await tokenFrom(a, app, ['reports:read']);
    const replies = await Promise.all(
      Array.from({ length: PER_MINUTE + 30 }, (_, n) => call(n % 2 ? a : b, 'GET', '/healthz', { token })),
    );
    const allowed = replies.filter((r) => r.status === 200);
    const limited = replies.filter((r) => r.status === 429);
    expect(allowed).toHaveLength(PER_MINUTE);
    expect(limited).toHaveLength(30);
    // One counter, decremented atomically: every allowed request saw a different remainder.
    const remaining = allowed.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: PER_MINUTE }, (_, n) => n));
    for (const r of limited) {
      expect(r.json.ResponseStatus.ErrorCode).toBe('TooManyRequests');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('honours a token issued by one instance on the other, and a revocation on one at once on the other', async () => {
    const app = await clientApp(h, ['webhooks:read']);
    const token = await tokenFrom(b, app, ['webhooks:read']);
    expect((await call(a, 'GET', '/api/webhooks/subscriptions', { token })).status).toBe(200);
    expect(await revoke(b, app, token)).toBe(200);
    const after = await call(a, 'GET', '/api/webhooks/subscriptions', { token });
    expect(after.status).toBe(401);
  });

  it('a PATCH through A makes the next GET through B fresh: new ETag, new body', async () => {
    const created = await call(a, 'POST', '/api/webhooks/subscriptions', {
      token: hooksToken,
      body: { Name: 'Cache probe', Event: 'feedback_delete', Config: { Url: `${rx.url}/cache` } },
    });
    expect(created.status).toBe(201);
    const path = `/api/webhooks/subscriptions/${created.json.WebhookSubscriptions[0].Id}`;
    const first = await call(b, 'GET', path, { token: hooksToken });
    expect(first.json.WebhookSubscription.Name).toBe('Cache probe');
    const etag = first.headers.get('etag')!;
    const again = await call(a, 'GET', path, { token: hooksToken, headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);

    const patched = await call(a, 'PATCH', path, {
      token: hooksToken,
      body: { Name: 'Cache probe renamed' },
    });
    expect(ok(patched)).toBe(true);
    const fresh = await call(b, 'GET', path, { token: hooksToken, headers: { 'if-none-match': etag } });
    expect(fresh.status).toBe(200);
    expect(fresh.json.WebhookSubscription.Name).toBe('Cache probe renamed');
    expect(fresh.headers.get('etag')).not.toBe(etag);
  });

  let signUpRequestId: string;
  let signedUpId: string;

  it('a graphql-ws subscriber on A receives the event of a mutation made through B (and one on B does too)', async () => {
    // Either instance may fan the event out; only a shared bus brings it to the subscribers of both.
    // They hear verification_update too: the markers that show them live, which no webhook subscription here takes.
    const names = ['useraccount_create', 'verification_update'];
    const listeners = [subscriber(a, hooksToken, names), subscriber(b, hooksToken, names)];
    try {
      await Promise.all(listeners.map((l) => l.opened));
      await mark(
        h,
        listeners.map((l) => l.got),
        (ctx, id) =>
          recordEvent(
            ctx,
            'verification_update',
            { id, subjectType: 'UserAccount', subjectId: id, kind: 'Email', status: 'Verified' },
            [],
          ),
      );
      signUpRequestId = `scale-${randomUUID()}`;
      const r = await call(b, 'POST', '/api/useraccounts', {
        headers: { 'request-id': signUpRequestId },
        body: {
          Username: `across.instances.${Date.now()}@example.com`,
          Password: 'a long and unusual passphrase',
          FirstName: 'Across',
          LastName: 'Instances',
        },
      });
      expect(r.status).toBe(201);
      signedUpId = r.json.UserAccount.Id;
      for (const l of listeners) {
        await waitFor(() => l.got.some((e) => e.payload.Id === signedUpId), { what: "the sign-up's event" });
        expect(l.got.find((e) => e.payload.Id === signedUpId)).toMatchObject({
          name: 'useraccount_create',
          payload: { Name: 'useraccount_create', Id: signedUpId },
        });
      }
    } finally {
      for (const l of listeners) await l.dispose();
    }
  });

  it(`delivers ${EVENTS} events through both instances' workers, each at least once, and fires each timer once`, async () => {
    for (let batch = 0; batch < EVENTS / 200; batch++)
      await scoped(h.orm).transactional(async (em) => {
        for (let i = 0; i < 200; i++) {
          const id = randomUUID();
          recordEvent(
            { em, clock: systemClock },
            'profile_update',
            { id, userId: id, changedFields: ['Description'] },
            [id],
          );
        }
      });
    const delivered = (event: string) =>
      new Set(
        rx.requests
          .filter((r) => r.reply !== 'hang' && r.reply !== 'reset' && r.reply.status === 200)
          .filter((r) => r.headers['x-webhook-event'] === event)
          .map((r) => r.deliveryId),
      );
    await waitFor(
      () => delivered('profile_update').size === EVENTS && delivered('carbooking_complete').size === NO_SHOWS,
      {
        timeoutMs: 90_000,
        everyMs: 200,
        what: 'every event and every no-show delivered',
      },
    );

    // Each delivery succeeded once: with no worker lost, no attempt was repeated after a success.
    const successes = rx.requests.filter(
      (r) => r.reply !== 'hang' && r.reply !== 'reset' && r.reply.status === 200,
    );
    expect(new Set(successes.map((r) => r.deliveryId)).size).toBe(successes.length);
    // Every delivery ends Succeeded (its worker records the outcome just after the receiver answers).
    await waitFor(
      async () => {
        const rows = await h.orm.em
          .fork()
          .getConnection()
          .execute<{ status: string }[]>('select distinct status from webhook_delivery');
        return rows.length === 1 && rows[0]!.status === 'Succeeded';
      },
      { what: 'every delivery Succeeded' },
    );

    // The timers fired once per booking though both instances swept: one event each, counted once in the logs.
    const bookings = await h.orm.em
      .fork()
      .getConnection()
      .execute<{ state: string; is_no_show: boolean }[]>(
        'select state, is_no_show from car_booking where id in (?)',
        [bookingIds],
      );
    expect(bookings.every((x) => x.state === 'Completed' && x.is_no_show)).toBe(true);
    const completes = await h.orm.em
      .fork()
      .getConnection()
      .execute<{ id: string; n: number }[]>(
        `select payload->>'Id' as id, count(*)::int as n from outbox_event where name = 'carbooking_complete' group by 1`,
      );
    expect(completes.map((c) => c.id).sort()).toEqual([...bookingIds].sort());
    expect(completes.every((c) => c.n === 1)).toBe(true);
    const fired = [...a.logs(), ...b.logs()].filter((l) => l.msg === 'booking timers fired');
    expect(fired.reduce((sum, l) => sum + l.noShows, 0)).toBe(NO_SHOWS);

    // Both workers took part.
    for (const i of [a, b])
      expect(await metric(i, 'webhook_deliveries_total', { outcome: 'succeeded' })).toBeGreaterThan(0);
  }, 120_000);

  it('logs each attempt with the event and the Request-Id of the request that raised it', async () => {
    const received = await waitFor(() =>
      rx.requests.find(
        (r) => r.headers['x-webhook-event'] === 'useraccount_create' && r.body.includes(signedUpId),
      ),
    );
    const attempts = await waitFor(() => {
      const lines = [...a.logs(), ...b.logs()].filter(
        (l) => l.msg === 'webhook attempt' && l.deliveryId === received.deliveryId,
      );
      return lines.length > 0 ? lines : undefined;
    });
    expect(attempts[0]).toMatchObject({
      event: 'useraccount_create',
      eventRequestId: signUpRequestId,
      requestId: received.headers['request-id'],
    });
    const raised = b.logs().find((l) => l.msg === 'request' && l.requestId === signUpRequestId);
    expect(raised).toMatchObject({ method: 'POST', path: '/api/useraccounts', status: 201 });
    expect(typeof attempts[0]!.eventId).toBe('string');
  });

  it('/metrics parses on both instances and its counters add up to the traffic made', async () => {
    const route = { route: '/api/webhooks/subscriptions', method: 'GET' };
    const before = await metric(a, 'http_requests_total', route);
    for (let n = 0; n < 3; n++) await call(a, 'GET', '/api/webhooks/subscriptions', { token: hooksToken });
    expect((await metric(a, 'http_requests_total', route)) - before).toBe(3);

    // The 30 refusals of the rate-limit test, wherever they landed.
    const rejections =
      (await metric(a, 'rate_limit_rejections_total')) + (await metric(b, 'rate_limit_rejections_total'));
    expect(rejections).toBe(30);

    // Deliveries by outcome add up to what the receiver saw, once the queue is empty.
    const answered = (status: number) =>
      rx.requests.filter((r) => r.reply !== 'hang' && r.reply !== 'reset' && r.reply.status === status)
        .length;
    const both = async (name: string, labels: Record<string, string> = {}) =>
      (await metric(a, name, labels)) + (await metric(b, name, labels));
    await waitFor(
      async () =>
        (await both('webhook_queue_depth')) === 0 &&
        (await both('webhook_deliveries_total', { outcome: 'succeeded' })) === answered(200) &&
        (await both('webhook_deliveries_total', { outcome: 'retrying' })) === answered(500),
      { timeoutMs: 10_000, everyMs: 200, what: 'delivery counters to match the receiver' },
    );
    expect(await both('outbox_unpublished_events')).toBe(0);
    expect(await both('webhook_deliveries_total', { outcome: 'failed' })).toBe(0);

    const text = (await call(b, 'GET', '/metrics')).text;
    const samples = parseMetrics(text);
    const one = (name: string) => samples.find((s) => s.name === name)?.value;
    expect(one('db_pool_max_connections')).toBe(10);
    expect(one('db_pool_connections')).toBeGreaterThanOrEqual(1);
    expect(one('db_pool_waiting_queries')).toBeGreaterThanOrEqual(0);
    expect(
      samples.filter((s) => s.name === 'graphql_operations_total' && s.labels.type === 'mutation').length,
    ).toBeGreaterThan(0);
    expect(samples.some((s) => s.name === 'http_request_duration_seconds_bucket')).toBe(true);
  });

  it('both stop cleanly on SIGTERM', async () => {
    const codes = await Promise.all([a.proc.stop('SIGTERM'), b.proc.stop('SIGTERM')]);
    expect(codes).toEqual([0, 0]);
  });
});
