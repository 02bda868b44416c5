// CONTRACT §28 "Overload", measured (not a test: it prints, it asserts nothing): the built service in its own
// process with `npm start`'s flags, on a seeded database, given 1,000 page requests of 100 cars at once (each URL
// its own, so neither the REST cache nor the sharing of a page being computed answers it), its RSS read from
// /proc every 100 ms; then 1,000 more whose clients hang up after 2 s, and what the service spent on them.
// Target (the issue): each served or refused with 503 within 10 s, resident memory ≤ 300 MB throughout.
// `npm run build` is run first. `npx tsx test/bench/overload.ts [--cars 2000] [--clients 1000]`.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, fetch } from 'undici';
import { loadCertificate } from '../../src/tls.js';
import { freePort } from '../support/port.js';
import type { ProbeStats } from './probe.js';
import { buildCompiled, serviceEnv, startAsNpmStart } from './processes.js';
import { createDatabase, prepare, readerToken } from './setup.js';

const { values: a } = parseArgs({
  options: {
    cars: { type: 'string', default: '2000' },
    clients: { type: 'string', default: '1000' },
  },
});
const size = { cars: Number(a.cars), bookings: 1000, users: 200 };
const clients = Number(a.clients);
const server = process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
const log = (line: string) => process.stderr.write(`${line}\n`);
const mb = (bytes: number) => Math.round(bytes / 1_048_576);

/** Resident memory of a process (VmRSS), in bytes. */
const rssOf = (pid: number): number => {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb ?? 0) * 1024;
};

buildCompiled();
const dataDir = mkdtempSync(join(tmpdir(), 'carshare-overload-'));
const tls = await loadCertificate({ dataDir });
const database = await createDatabase(server);
const port = await freePort();
const origin = `https://localhost:${port}`;
// One connection per client, as 1,000 separate clients would have; a client waits up to a minute to connect (undici's
// default, 10 s, fails connections the loaded machine is still handshaking, and those never reach the service).
const agent = new Agent({ connect: { ca: tls.cert, timeout: 60_000 }, connections: clients, pipelining: 1 });
try {
  log(`seeding ${size.cars} cars`);
  const prepared = await prepare(database.url, dataDir, size);
  const svc = await startAsNpmStart(
    serviceEnv({ databaseUrl: database.url, dataDir, port, logLevel: 'silent' }),
    true,
  );
  const token = await readerToken(origin, dataDir, prepared.reader);
  const headers = { authorization: `Bearer ${token}` };
  let n = 0;
  const pagePath = () => {
    n += 1;
    return `/api/cars?limit=100&offset=${(n * 7) % Math.max(1, size.cars - 100)}&_=${n}`;
  };
  /** A sample of the service's /metrics: the first of this name carrying every label given. */
  const metric = async (name: string, labels: Record<string, string> = {}): Promise<number> => {
    const text = await (await fetch(`${origin}/metrics`, { dispatcher: agent })).text();
    const line = text
      .split('\n')
      .find(
        (l) =>
          (l.startsWith(`${name} `) || l.startsWith(`${name}{`)) &&
          Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
      );
    return Number(line?.split(' ').at(-1) ?? 0);
  };

  // Warm up: compiled documents, the token cache, V8's optimised code.
  for (let i = 0; i < 20; i += 1)
    await (await fetch(`${origin}${pagePath()}`, { headers, dispatcher: agent })).arrayBuffer();
  const idle = rssOf(svc.pid);

  let peak = idle;
  // What the memory was made of at the highest RSS the probe itself reported (its answer comes between two turns
  // of a busy event loop, so it is sampled apart from /proc's RSS and may miss the very top).
  let peakStats: ProbeStats | undefined;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, rssOf(svc.pid));
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const breakdown = (async () => {
    while (sampling) {
      const s = await svc.stats();
      if (!peakStats || s.rss > peakStats.rss) peakStats = s;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const describePeak = () => {
    if (!peakStats) return '';
    const s = peakStats;
    const spaces = Object.entries(s.spaces)
      .filter(([, v]) => v >= 1_048_576)
      .map(([k, v]) => `${k.replace(/_space$/, '')} ${mb(v)}`)
      .join(', ');
    return `RSS ${mb(s.rss)} MB = heap ${mb(s.heapTotal)} (used ${mb(s.heapUsed)}; ${spaces}), external ${mb(s.external)}, other ${mb(s.rss - s.heapTotal - s.external)}`;
  };

  log(`${clients} concurrent GET /api/cars?limit=100 (idle RSS ${mb(idle)} MB)`);
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: clients }, async () => {
      const t = performance.now();
      try {
        const r = await fetch(`${origin}${pagePath()}`, { headers, dispatcher: agent });
        // The status and headers are the answer (served or refused); the body of a page follows.
        const headersMs = performance.now() - t;
        await r.arrayBuffer();
        return {
          status: r.status,
          ms: performance.now() - t,
          headersMs,
          retryAfter: r.headers.get('retry-after'),
        };
      } catch (e) {
        // No answer: the connection failed (undici's connect timeout is 10 s) or was closed.
        const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message;
        return { status: 0, ms: performance.now() - t, headersMs: performance.now() - t, retryAfter: cause };
      }
    }),
  );
  const wall = performance.now() - started;
  await new Promise((r) => setTimeout(r, 300));
  const count = (s: number) => results.filter((r) => r.status === s).length;
  const maxOf = (s?: number) =>
    Math.round(Math.max(0, ...results.filter((r) => s === undefined || r.status === s).map((r) => r.ms)));
  const others = results.filter((r) => r.status !== 200 && r.status !== 503);
  log(`  200: ${count(200)} (slowest ${maxOf(200)} ms)`);
  log(
    `  503: ${count(503)} (slowest ${maxOf(503)} ms; Retry-After ${[...new Set(results.filter((r) => r.status === 503).map((r) => r.retryAfter))].join(', ')})`,
  );
  if (others.length > 0)
    log(
      `  other: ${others.length} (${[...new Set(others.map((r) => `${r.status} ${r.retryAfter ?? ''}`))].slice(0, 3).join('; ')})`,
    );
  const within = (ms: number) => results.filter((r) => r.status !== 0 && r.headersMs <= ms).length;
  log(`  max latency ${maxOf()} ms, all answered in ${Math.round(wall)} ms`);
  log(
    `  status and headers within 5 s: ${within(5_000)}, within 10 s: ${within(10_000)} (slowest ${Math.round(Math.max(...results.map((r) => r.headersMs)))} ms)`,
  );
  log(`  max RSS ${mb(peak)} MB (idle ${mb(idle)} MB); at the probe's highest: ${describePeak()}`);
  // The same requests as the service timed them, from their arrival (after the TLS handshake) to their answer.
  const bucket = async (le: string) =>
    metric('http_request_duration_seconds_bucket', { le, route: '/api/cars', method: 'GET' });
  const [within1, within5, all] = [await bucket('1'), await bucket('5'), await bucket('+Inf')];
  log(`  in the service: ${within1} of ${all} answered within 1 s of arriving, ${within5} within 5 s`);
  log(
    `  refused by reason: queue_full ${await metric('graphql_gate_shed_total', { reason: 'queue_full' })}, wait_timeout ${await metric('graphql_gate_shed_total', { reason: 'wait_timeout' })}`,
  );

  // Clients that hang up after 2 s: what the service still spends on them once they have gone.
  const before = await svc.stats();
  const gone = await Promise.all(
    Array.from({ length: clients }, async () => {
      try {
        const r = await fetch(`${origin}${pagePath()}`, {
          headers,
          dispatcher: agent,
          signal: AbortSignal.timeout(2_000),
        });
        await r.arrayBuffer();
        return r.status;
      } catch {
        return 0;
      }
    }),
  );
  // Until the service has nothing left in flight but this scrape.
  for (let i = 0; i < 300 && (await metric('http_requests_in_flight')) > 1; i += 1)
    await new Promise((r) => setTimeout(r, 100));
  const after = await svc.stats();
  sampling = false;
  await Promise.all([sampler, breakdown]);
  log(
    `${clients} clients hanging up after 2 s: ${gone.filter((s) => s === 0).length} hung up, ${gone.filter((s) => s === 200).length} answered 200, ${gone.filter((s) => s === 503).length} 503; ` +
      `the service spent ${((after.cpuMicros - before.cpuMicros) / 1e6).toFixed(1)} CPU-s and ${after.statements - before.statements} SQL statements; ` +
      `dropped for hanging up: ${await metric('graphql_gate_shed_total', { reason: 'disconnected' })}; max RSS overall ${mb(peak)} MB; at the probe's highest: ${describePeak()}`,
  );
  await svc.stop();
} finally {
  await agent.close();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
