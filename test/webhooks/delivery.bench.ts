// `npm run bench`: webhook deliveries per second to a local receiver and the event-to-first-attempt latency
// (p50, p99), beside a baseline of bare HTTP POSTs to the same receiver at the same concurrency. Not a test.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { migrate } from '../../src/db/migrate.js';
import { openOrm } from '../../src/db/orm.js';
import { startDelivery } from '../../src/delivery/delivery.runtime.js';
import { recordEvent } from '../../src/events/outbox.js';
import { startOutboxRelay } from '../../src/events/relay.js';
import { entities } from '../../src/modules.js';
import { systemClock } from '../../src/shared/clock.js';
import { fanOutBatch } from '../../src/webhooks/fanout.js';
import { encryptSecret, generateSecret, loadDataKey } from '../../src/webhooks/secret.js';
import { startReceiver } from './receiver.js';

const SERVER = process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
const BURST = Number(process.env.BENCH_EVENTS ?? 2000);
const PACED_PER_SECOND = 50;
const PACED_SECONDS = 10;
const CONCURRENCY = 16;

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function withDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const name = `carshare_bench_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  try {
    return await fn(url.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** Bare POSTs of the same size at the same concurrency: what the receiver and the loopback allow. */
async function baseline(url: string, n: number): Promise<number> {
  const agent = new Agent();
  const body = JSON.stringify({ Name: 'profile_update', Id: randomUUID() });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < n) {
        const r = await request(url, {
          method: 'POST',
          dispatcher: agent,
          body,
          headers: { 'content-type': 'application/json' },
        });
        await r.body.dump();
      }
    }),
  );
  await agent.close();
  return n / ((performance.now() - started) / 1000);
}

await withDatabase(async (url) => {
  const orm = await openOrm(url, entities as never, { pool: 10 });
  await migrate(orm, url);
  const rx = await startReceiver();
  const em = orm.em.fork();
  const id = randomUUID();
  const now = new Date();
  await em.getConnection().execute(
    `insert into webhook_subscription (id, name, event, url, content_type, secret, is_active, consecutive_failures,
      receives_all, created_by_id, created_date_utc, last_modified_date_utc)
      values (?, 'bench', 'profile_update', ?, 'application/json', ?, true, 0, true, ?, ?, ?)`,
    [
      id,
      `${rx.url}/hook`,
      encryptSecret(await loadDataKey(em), generateSecret(), id),
      randomUUID(),
      now,
      now,
    ],
  );
  const raw = await baseline(`${rx.url}/baseline`, BURST);
  rx.requests.length = 0;
  const log = pino({ level: 'silent' });
  const delivery = await startDelivery({
    orm,
    databaseUrl: url,
    clock: systemClock,
    log,
    retryScheduleMs: [1000],
    timeoutMs: 15_000,
    allowPrivateTargets: true,
    concurrency: CONCURRENCY,
  });
  const relay = startOutboxRelay({
    orm,
    databaseUrl: url,
    clock: systemClock,
    log,
    bus: undefined,
    take: fanOutBatch,
    onTaken: () => delivery.wake(),
  });
  const record = (n: number) =>
    orm.em.fork().transactional(async (tx) => {
      for (let i = 0; i < n; i++) {
        const u = randomUUID();
        recordEvent(
          { em: tx, clock: systemClock },
          'profile_update',
          { id: u, userId: u, changedFields: ['Description'] },
          [u],
        );
      }
    });
  const firstArrivals = () => {
    const first = new Map<string, number>();
    for (const r of rx.requests) if (!first.has(r.deliveryId)) first.set(r.deliveryId, r.at);
    return [...first.values()];
  };
  const latencies = () =>
    rx.requests.map(
      (r) => r.at - Date.parse((JSON.parse(r.body) as { OccurredDateUtc: string }).OccurredDateUtc),
    );

  // Burst: everything committed at once; throughput until the last first attempt.
  const t0 = Date.now();
  for (let i = 0; i < BURST; i += 500) await record(Math.min(500, BURST - i));
  while (firstArrivals().length < BURST) await sleep(20);
  const burstSeconds = (Math.max(...firstArrivals()) - t0) / 1000;
  const burstLatency = latencies();

  // Paced: a steady trickle, where latency is the pipeline's and not the backlog's.
  rx.requests.length = 0;
  for (let s = 0; s < PACED_SECONDS * 10; s++) {
    await record(PACED_PER_SECOND / 10);
    await sleep(100);
  }
  while (firstArrivals().length < PACED_PER_SECOND * PACED_SECONDS) await sleep(20);
  const paced = latencies();

  await relay.stop();
  await delivery.stop();
  await rx.close();
  await orm.close(true);
  const perSecond = BURST / burstSeconds;
  const lines = [
    `baseline: bare POSTs to the receiver, concurrency ${CONCURRENCY}: ${raw.toFixed(0)}/s`,
    `burst of ${BURST} events: ${perSecond.toFixed(0)} deliveries/s (${((perSecond / raw) * 100).toFixed(0)} % of baseline), ` +
      `event-to-first-attempt p50 ${pct(burstLatency, 50)} ms, p99 ${pct(burstLatency, 99)} ms`,
    `paced ${PACED_PER_SECOND} events/s for ${PACED_SECONDS} s: event-to-first-attempt p50 ${pct(paced, 50)} ms, ` +
      `p99 ${pct(paced, 99)} ms`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
});
