// CONTRACT §28 "Overload" through the public interface: a service whose execution gate runs one page at a time and
// queues one more (internal sizes a test passes; the service's own are gateSizes) is given more pages than that
// while the database holds the first one. What is over the queue, or waits past the bound, is answered 503
// `ServiceUnavailable` with `Retry-After`, in the REST envelope and in GraphQL's shape; a client that hangs up
// while its request waits costs no execution.
import pg from 'pg';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, expect, inject, it, onTestFinished } from 'vitest';
import { createUser } from '../factories/accounts.js';
import { seedCars } from '../factories/cars.js';
import { type Reply, useRest } from '../rest-facade/support.js';
import { asClient } from '../support/actors.js';
import { parseMetrics } from '../support/metrics.js';
import { waitFor, waitForLockWait } from '../support/wait.js';
import { wsClient } from '../support/ws.js';

// Pages weigh at most the page budget: with a budget of 1, one page runs at once and one waits.
const env = useRest({ gate: { freeBelow: 50, pageBudget: 1, queueFactor: 1, maxWaitMs: 2_500 } });
let token: string;
let agent: Agent;

beforeAll(async () => {
  const owner = (await createUser(env.h)).id;
  await seedCars(env.h, [owner], 120);
  token = env.tokenFor(asClient(['cars:read']));
  agent = new Agent({ connect: { ca: env.service.cert } });
});
afterAll(() => agent.close());

// Each page a URL of its own: neither the REST cache nor the sharing of a page being computed answers it.
let n = 0;
const page = (): Promise<Reply> => {
  n += 1;
  return env.call('GET', `/api/cars?limit=100&_=${n}`, { token });
};
const graphqlPage = () =>
  env.call('POST', '/graphql', { token, body: { query: '{ cars(limit: 100) { nodes { id } } }' } });

async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${env.origin}/metrics`, { dispatcher: agent })).text();
  const found = parseMetrics(text).find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return found?.value ?? 0;
}

/** Holds every read of the car table until `release`: the page that runs waits on it, holding its slot. */
async function lockCars() {
  const raw = new pg.Client({ connectionString: inject('databaseUrl') });
  await raw.connect();
  await raw.query('begin');
  await raw.query('lock table car in access exclusive mode');
  let held = true;
  return async () => {
    if (!held) return;
    held = false;
    await raw.query('commit');
    await raw.end();
  };
}

it('answers what it cannot start soon with 503 ServiceUnavailable and Retry-After, on REST and /graphql', async () => {
  const release = await lockCars();
  onTestFinished(release);
  const first = [page(), page()];
  // One page runs (held by the lock), one waits: the queue is full.
  await waitForLockWait(env.h.orm);
  await waitFor(async () => (await metric('graphql_gate_waiting')) === 1, { what: 'a page to queue' });

  const rest = await page();
  expect(rest.status).toBe(503);
  expect(rest.headers.get('retry-after')).toMatch(/^[1-5]$/);
  expect(rest.json.ResponseStatus).toMatchObject({ ErrorCode: 'ServiceUnavailable', Errors: [] });
  expect(rest.json.ResponseStatus.Meta.RetryAfterSeconds).toBe(Number(rest.headers.get('retry-after')));
  expect(rest.headers.get('request-id')).toBeTruthy();

  const graphql = await graphqlPage();
  expect(graphql.status).toBe(503);
  expect(graphql.headers.get('retry-after')).toMatch(/^[1-5]$/);
  expect(graphql.json.data).toBeUndefined();
  expect(graphql.json.errors).toEqual([
    {
      message: expect.any(String),
      extensions: { code: 'ServiceUnavailable', meta: { retryAfterSeconds: expect.any(Number) } },
    },
  ]);

  // The one waiting is refused once it has waited the bound, though nothing else came; then the lock goes and
  // the one running is answered.
  const [a, b] = first;
  const waited = await Promise.race([a!, b!]);
  expect(waited.status).toBe(503);
  expect(waited.json.ResponseStatus.ErrorCode).toBe('ServiceUnavailable');
  await release();
  expect((await Promise.all(first)).map((r) => r.status).sort()).toEqual([200, 503]);

  expect(await metric('graphql_gate_shed_total', { reason: 'queue_full' })).toBe(2);
  expect(await metric('graphql_gate_shed_total', { reason: 'wait_timeout' })).toBe(1);
});

it('drops a waiting request whose client hangs up: it costs no execution', async () => {
  // What one page costs in statements, when it runs.
  env.sql.length = 0;
  expect((await page()).status).toBe(200);
  const perPage = env.sql.length;
  expect(perPage).toBeGreaterThan(0);

  const release = await lockCars();
  onTestFinished(release);
  env.sql.length = 0;
  const running = page();
  await waitForLockWait(env.h.orm);
  const client = new AbortController();
  const waiting = fetch(`${env.origin}/api/cars?limit=100&_=gone`, {
    headers: { Authorization: `Bearer ${token}` },
    dispatcher: agent,
    signal: client.signal,
  }).catch((e: unknown) => e);
  await waitFor(async () => (await metric('graphql_gate_waiting')) === 1, { what: 'the page to queue' });
  client.abort();
  expect(await waiting).toMatchObject({ name: 'AbortError' });
  await waitFor(async () => (await metric('graphql_gate_waiting')) === 0, { what: 'the queue to empty' });
  expect(await metric('graphql_gate_shed_total', { reason: 'disconnected' })).toBe(1);

  await release();
  expect((await running).status).toBe(200);
  // The lane is free: had the hung-up page run after the first, it would have shown its statements here.
  await waitFor(async () => (await metric('http_requests_in_flight')) <= 1, { what: 'requests to end' });
  expect(env.sql.length).toBe(perPage);
});

it('runs graphql-ws queries through the same gate: one that cannot start in time gets ServiceUnavailable', async () => {
  const release = await lockCars();
  onTestFinished(release);
  const first = [page(), page()];
  await waitForLockWait(env.h.orm);
  await waitFor(async () => (await metric('graphql_gate_waiting')) === 1, { what: 'a page to queue' });
  const client = wsClient({ origin: env.origin, cert: env.service.cert }, token);
  onTestFinished(() => client.dispose());
  const answer = await new Promise<{ data?: unknown; errors?: readonly unknown[] }>((resolve, reject) => {
    let result = {};
    client.subscribe(
      { query: '{ cars(limit: 100) { nodes { id } } }' },
      { next: (r) => (result = r), error: reject, complete: () => resolve(result) },
    );
  });
  // The queue was full: the operation is refused at once, and the connection stays open for the next one.
  expect(answer.errors).toEqual([
    expect.objectContaining({
      extensions: { code: 'ServiceUnavailable', meta: { retryAfterSeconds: expect.any(Number) } },
    }),
  ]);
  await release();
  await Promise.all(first);
  const small = await new Promise<{ data?: unknown }>((resolve, reject) => {
    let result = {};
    client.subscribe(
      { query: '{ cars(limit: 1) { total } }' },
      { next: (r) => (result = r), error: reject, complete: () => resolve(result) },
    );
  });
  expect(small.data).toEqual({ cars: { total: expect.any(Number) } });
});
