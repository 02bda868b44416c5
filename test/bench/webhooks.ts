// S7: webhook fan-out and delivery by the running service, to a local receiver. A burst is one committed event
// matching 1,000 subscriptions (deliveries per second until the last first attempt); a paced run is 100 events
// a second to one subscription (event-to-first-attempt latency). The baseline is the same number of bare
// POSTs from undici to the same receiver at the service's delivery concurrency.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { openOrm } from '../../src/db/orm.js';
import { carShareEm } from '../../src/db/scope.js';
import { entities } from '../../src/modules.js';
import { encryptSecret, generateSecret, loadDataKey } from '../../src/webhooks/secret.js';
import type { Bench } from './measure.js';

const SUBSCRIBERS = 1000;
const BURSTS = 3;
const PACED_PER_SECOND = 100;
const PACED_SECONDS = 10;
/** The service's attempts in flight, one connection each (src/delivery/delivery.runtime.ts): the baseline sends as many. */
const CONCURRENCY = 32;

interface Arrival {
  at: number;
  delivery: string;
  occurred: number;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function receiver() {
  const arrivals: Arrival[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const delivery = String(req.headers['x-webhook-delivery'] ?? '');
      if (delivery) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { OccurredDateUtc: string };
        arrivals.push({ at, delivery, occurred: Date.parse(body.OccurredDateUtc) });
      }
      res.writeHead(204).end();
    });
  });
  return new Promise<{ url: string; arrivals: Arrival[]; close: () => Promise<void> }>((ok) =>
    server.listen(0, '127.0.0.1', () =>
      ok({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        arrivals,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      }),
    ),
  );
}

/** First attempts only: a delivery retried would count twice. */
const firsts = (xs: Arrival[]) => {
  const seen = new Map<string, Arrival>();
  for (const a of xs) if (!seen.has(a.delivery)) seen.set(a.delivery, a);
  return [...seen.values()];
};

export interface WebhookResult {
  goal: { perSecond: number; p99Ms: number };
  table: string;
  [k: string]: unknown;
}

export async function runWebhooks(
  b: Bench,
  databaseUrl: string,
  log: (line: string) => void,
): Promise<WebhookResult> {
  log('  S7: webhook fan-out, one event to 1,000 subscriptions; 100 events/s to one');
  const rx = await receiver();
  const orm = await openOrm(databaseUrl, entities as never, { pool: 2 });
  const key = await loadDataKey(carShareEm(orm, b.carShareId));
  const now = new Date();
  const subs = Array.from({ length: SUBSCRIBERS + 1 }, (_, i) => {
    const id = randomUUID();
    return {
      id,
      event: i < SUBSCRIBERS ? 'carbooking_cancel' : 'profile_update',
      url: `${rx.url}/hook/${i}`,
      secret: encryptSecret(key, generateSecret(), id),
    };
  });
  await b.db.query(
    `insert into webhook_subscription (id, name, event, url, content_type, secret, is_active, consecutive_failures,
       receives_all, created_by_id, created_date_utc, last_modified_date_utc)
     select s.id, 'bench ' || s.n, s.event, s.url, 'application/json', s.secret, true, 0, true, $5, $6, $6
     from unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) with ordinality as s(id, event, url, secret, n)`,
    [
      subs.map((s) => s.id),
      subs.map((s) => s.event),
      subs.map((s) => s.url),
      subs.map((s) => s.secret),
      'bench',
      now,
    ],
  );
  // Statistics as a table has them once its rows have been there a while (autovacuum analyzes within a minute):
  // without them the planner takes the 1,000 fresh subscriptions of one car share for a handful, and its plans for
  // the batched outcome writes (joined on the composite key led by car_share_id) become quadratic for the burst.
  await b.db.query('analyze webhook_subscription');
  const event = async (name: string) => {
    const occurred = new Date();
    const id = randomUUID();
    const payload =
      name === 'profile_update'
        ? {
            Name: name,
            OccurredDateUtc: occurred.toISOString(),
            Id: id,
            UserId: id,
            ChangedFields: ['Description'],
          }
        : {
            Name: name,
            OccurredDateUtc: occurred.toISOString(),
            Id: id,
            Reference: 'BENCHREF',
            State: 'Cancelled',
          };
    // Written as the service writes events: the relays are woken in the same transaction (CONTRACT §25), told
    // whose events they are.
    await b.db.query(
      `with e as (insert into outbox_event (id, name, payload, audience_user_ids, occurred_date_utc)
         values ($1, $2, $3::jsonb, '[]'::jsonb, $4) returning 1)
       select pg_notify('carshare_outbox', $5)`,
      [id, name, JSON.stringify(payload), occurred, b.carShareId],
    );
  };
  const waitFor = async (n: number, ms: number) => {
    const until = Date.now() + ms;
    while (firsts(rx.arrivals).length < n && Date.now() < until) await sleep(20);
  };

  const ours = b.processes.get('ours')!;
  const s0 = await ours.stats();
  const bursts: { perSecond: number; firstMs: number; lastMs: number }[] = [];
  for (let i = 0; i < BURSTS; i++) {
    rx.arrivals.length = 0;
    const t0 = Date.now();
    await event('carbooking_cancel');
    await waitFor(SUBSCRIBERS, 60_000);
    const fs = firsts(rx.arrivals);
    const last = Math.max(...fs.map((a) => a.at));
    bursts.push({
      perSecond: fs.length / ((last - t0) / 1000),
      firstMs: Math.min(...fs.map((a) => a.at)) - t0,
      lastMs: last - t0,
    });
    log(
      `    S7 burst ${i + 1}: ${fs.length} deliveries in ${last - t0} ms (${bursts.at(-1)!.perSecond.toFixed(0)}/s)`,
    );
  }
  const s1 = await ours.stats();
  const delivered = BURSTS * SUBSCRIBERS;

  rx.arrivals.length = 0;
  for (let s = 0; s < PACED_SECONDS * 10; s++) {
    const tick = Date.now();
    for (let k = 0; k < PACED_PER_SECOND / 10; k++) await event('profile_update');
    await sleep(Math.max(0, 100 - (Date.now() - tick)));
  }
  await waitFor(PACED_PER_SECOND * PACED_SECONDS, 30_000);
  const paced = firsts(rx.arrivals).map((a) => a.at - a.occurred);
  log(`    S7 paced: ${paced.length} deliveries, p50 ${pct(paced, 50)} ms, p99 ${pct(paced, 99)} ms`);

  // The baseline: bare POSTs of a delivery-sized body to the same receiver, same concurrency.
  const pool = new Pool(rx.url, { connections: CONCURRENCY });
  const body = JSON.stringify({ Name: 'carbooking_cancel', OccurredDateUtc: new Date().toISOString() });
  let next = 0;
  const d0 = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < SUBSCRIBERS * BURSTS) {
        const r = await pool.request({
          path: '/direct',
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json' },
        });
        await r.body.dump();
      }
    }),
  );
  const direct = (SUBSCRIBERS * BURSTS) / ((Date.now() - d0) / 1000);
  await pool.close();
  await rx.close();
  await orm.close(true);

  const perSecond = [...bursts.map((x) => x.perSecond)].sort((x, y) => x - y)[1] ?? bursts[0]!.perSecond;
  const p99 = pct(paced, 99);
  const perDelivery = (s1.cpuMicros - s0.cpuMicros) / delivered;
  const sqlPerDelivery = (s1.statements - s0.statements) / delivered;
  const table = [
    '| S7 webhooks | deliveries/s | vs direct POSTs | first attempt after (ms) | last after (ms) | event→first attempt p50 / p99 (ms) | CPU µs/delivery | SQL/delivery |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    `| ours, 1 event → ${SUBSCRIBERS} subscriptions (median of ${BURSTS}) | ${perSecond.toFixed(0)} | ${(perSecond / direct).toFixed(2)}× | ${pct(
      bursts.map((x) => x.firstMs),
      50,
    )} | ${pct(
      bursts.map((x) => x.lastMs),
      50,
    )} | | ${perDelivery.toFixed(0)} | ${sqlPerDelivery.toFixed(2)} |`,
    `| ours, ${PACED_PER_SECOND} events/s → 1 subscription, ${PACED_SECONDS} s | | | | | ${pct(paced, 50)} / ${p99} | | |`,
    `| direct: undici POSTs, concurrency ${CONCURRENCY} | ${direct.toFixed(0)} | 1.00× | | | | | |`,
  ].join('\n');
  return {
    goal: { perSecond, p99Ms: p99 },
    table,
    bursts,
    pacedP50Ms: pct(paced, 50),
    pacedP99Ms: p99,
    pacedDelivered: paced.length,
    directPerSecond: direct,
    cpuMicrosPerDelivery: perDelivery,
    statementsPerDelivery: sqlPerDelivery,
  };
}
