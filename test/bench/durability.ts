// D1: webhook durability under load. Two service processes on a database of their own deliver 10,000 events to
// a receiver failing 30 % of requests at random (5xx, hangs past the deadline, connection resets); one of them
// is SIGKILLed mid-run and started again. Every event must reach the receiver (counted by `webhook-id`); the
// duplicates (at-least-once) are reported.
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { openOrm } from '../../src/db/orm.js';
import { carShareEm } from '../../src/db/scope.js';
import { entities } from '../../src/modules.js';
import { encryptSecret, generateSecret, loadDataKey } from '../../src/webhooks/secret.js';
import { freePort } from '../support/port.js';
import { serviceEnv, startVariant, type Variant } from './processes.js';
import { createDatabase } from './setup.js';

const EVENTS = 10_000;
const FAILING = 0.3;
/** Immediate retries, so many that 30 % failures never exhaust a delivery (0.3^15 per event). */
const RETRIES = Array(14).fill('0').join(',');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface DurabilityResult {
  events: number;
  delivered: number;
  lost: number;
  duplicates: number;
  requests: number;
  failedRequests: number;
  seconds: number;
  table: string;
}

function receiver() {
  const ok = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  let requests = 0;
  let failed = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests += 1;
      const r = Math.random();
      if (r < FAILING) {
        failed += 1;
        if (r < 0.2) res.writeHead(500).end();
        else if (r < 0.25) hanging.add(res);
        else req.socket.destroy();
        return;
      }
      const id = String(req.headers['webhook-id'] ?? '');
      ok.set(id, (ok.get(id) ?? 0) + 1);
      res.writeHead(204).end();
    });
  });
  return new Promise<{
    url: string;
    ok: Map<string, number>;
    counts: () => { requests: number; failed: number };
    close: () => Promise<void>;
  }>((done) =>
    server.listen(0, '127.0.0.1', () =>
      done({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        ok,
        counts: () => ({ requests, failed }),
        close: () =>
          new Promise<void>((closed) => {
            server.closeAllConnections();
            server.close(() => closed());
          }),
      }),
    ),
  );
}

export async function runDurability(o: {
  server: string;
  certs: { TLS_CERT: string; TLS_KEY: string };
  dataDir: string;
  log: (line: string) => void;
}): Promise<DurabilityResult> {
  o.log(`  D1: ${EVENTS} events, receiver failing ${FAILING * 100} %, one of two workers SIGKILLed mid-run`);
  const database = await createDatabase(o.server);
  const rx = await receiver();
  const workers: Variant[] = [];
  const worker = async (name: string) => {
    const port = await freePort();
    const v = await startVariant(name, 'variants/ours.ts', {
      ...serviceEnv({ databaseUrl: database.url, dataDir: o.dataDir, port, logLevel: 'warn' }),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_SCHEDULE: RETRIES,
    });
    workers.push(v);
    return v;
  };
  const db = new pg.Client({ connectionString: database.url });
  try {
    const a = await worker('worker-a');
    await worker('worker-b');
    await db.connect();
    // The rows below are the default car share's (their car_share_id's default reads the setting).
    const { rows } = await db.query<{ id: string }>('select id from car_share where is_default');
    await db.query(`select set_config('carshare.car_share_id', $1, false)`, [rows[0]!.id]);
    const orm = await openOrm(database.url, entities as never, { pool: 1 });
    const key = await loadDataKey(carShareEm(orm, rows[0]!.id));
    await orm.close(true);
    const sub = randomUUID();
    await db.query(
      `insert into webhook_subscription (id, name, event, url, content_type, secret, is_active, consecutive_failures,
         receives_all, created_by_id, created_date_utc, last_modified_date_utc)
       values ($1, 'durability', 'profile_update', $2, 'application/json', $3, true, 0, true, 'bench', now(), now())`,
      [sub, `${rx.url}/hook`, encryptSecret(key, generateSecret(), sub)],
    );
    const t0 = Date.now();
    for (let i = 0; i < EVENTS; i += 500)
      // Written as the service writes events: the relays are woken in the same transaction (CONTRACT §25).
      await db.query(
        `with w as (insert into outbox_event (id, name, payload, audience_user_ids, occurred_date_utc)
           select id, 'profile_update', jsonb_build_object('Name', 'profile_update', 'OccurredDateUtc', now(),
             'Id', id, 'UserId', id, 'ChangedFields', jsonb_build_array('Description')), '[]'::jsonb, now()
           from (select gen_random_uuid() as id from generate_series(1, $1)) e returning 1)
         select pg_notify('carshare_outbox', current_setting('carshare.car_share_id'))`,
        [Math.min(500, EVENTS - i)],
      );
    while (rx.ok.size < EVENTS / 4 && Date.now() - t0 < 120_000) await sleep(50);
    o.log(`    D1: ${rx.ok.size} delivered; SIGKILL worker-a (pid ${a.pid}) and start it again`);
    process.kill(a.pid, 'SIGKILL');
    await worker('worker-a2');
    const until = Date.now() + 300_000;
    for (;;) {
      const { rows } = await db.query<{ pending: string; n: string }>(
        `select count(*) filter (where status = 'Pending') as pending, count(*) as n from webhook_delivery`,
      );
      if ((Number(rows[0]!.n) === EVENTS && Number(rows[0]!.pending) === 0) || Date.now() > until) break;
      await sleep(250);
    }
    const seconds = (Date.now() - t0) / 1000;
    const { rows: ids } = await db.query<{ id: string }>('select id from webhook_delivery');
    const delivered = ids.filter((r) => rx.ok.has(r.id.trim())).length;
    const duplicates = [...rx.ok.values()].filter((n) => n > 1).length;
    const { requests, failed } = rx.counts();
    const lost = EVENTS - delivered;
    o.log(
      `    D1: ${delivered} of ${EVENTS} delivered in ${seconds.toFixed(1)} s, ${lost} lost, ${duplicates} duplicates`,
    );
    const table = [
      '| D1 durability | events | delivered (distinct webhook-id) | lost | duplicates | requests (failed) | seconds |',
      '|---|---:|---:|---:|---:|---:|---:|',
      `| 2 workers, one SIGKILLed mid-run; receiver failing ${FAILING * 100} % | ${EVENTS} | ${delivered} | ${lost} | ${duplicates} | ${requests} (${failed}) | ${seconds.toFixed(1)} |`,
    ].join('\n');
    return { events: EVENTS, delivered, lost, duplicates, requests, failedRequests: failed, seconds, table };
  } finally {
    await Promise.all(workers.map((w) => w.stop().catch(() => undefined)));
    await db.end().catch(() => undefined);
    await rx.close();
    await database.drop();
  }
}
