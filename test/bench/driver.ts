// The load generator, a process of its own (forked by the harness): a closed loop of N keep-alive connections
// over undici, each sending its next request when the last answer has been read. Latency in a histogram,
// statuses counted, and every body's hash compared with the expected one when the scenario has one.
import { createHash } from 'node:crypto';
import { createHistogram } from 'node:perf_hooks';
import { Pool } from 'undici';

/** How the n-th request of a run is made. */
export type Generator =
  | { kind: 'fixed' }
  /** A throwaway query parameter, different on every request: no cache can answer it. */
  | { kind: 'unique' }
  /** A booking request: car `cars[n % cars.length]`, a one-hour period in slot `slotBase + n / cars.length`. */
  | { kind: 'booking'; cars: string[]; slotBase: number; from: string };

export interface Job {
  origin: string;
  ca: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  generator: Generator;
  connections: number;
  durationMs: number;
  /** Where the sequence starts (booking slots must never repeat across runs). */
  seq: number;
  expectStatus: number;
  expectSha1?: string;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers with another status, or transport errors. */
  errors: number;
  mismatches: number;
  statuses: Record<string, number>;
  driverCpuMicros: number;
  /** The sequence number the next run should start at. */
  nextSeq: number;
  firstError?: string;
}

const HOUR = 3_600_000;

function requestFor(job: Job, n: number): { path: string; body?: string } {
  const g = job.generator;
  if (g.kind === 'fixed') return { path: job.path, ...(job.body ? { body: job.body } : {}) };
  if (g.kind === 'unique')
    return {
      path: `${job.path}${job.path.includes('?') ? '&' : '?'}_=${n}`,
      ...(job.body ? { body: job.body } : {}),
    };
  const car = g.cars[n % g.cars.length]!;
  const slot = g.slotBase + Math.floor(n / g.cars.length);
  const start = new Date(Date.parse(g.from) + slot * 2 * HOUR);
  return {
    path: job.path.replace('{car}', car),
    body: JSON.stringify({
      StartDateUtc: start.toISOString(),
      EndDateUtc: new Date(start.getTime() + HOUR).toISOString(),
      Message: 'bench',
    }),
  };
}

/** Pools outlive a run, so the measured run right after a warm-up finds its connections open and warm. */
type Pools = Map<string, Pool>;

export async function drive(job: Job, pools: Pools): Promise<LoadResult> {
  const key = `${job.origin} ${job.connections}`;
  let pool = pools.get(key);
  if (!pool) {
    pool = new Pool(job.origin, {
      connections: job.connections,
      pipelining: 1,
      connect: { ca: job.ca, servername: 'localhost' },
    });
    pools.set(key, pool);
  }
  // Garbage from the last run is collected now, not during this one.
  (globalThis as { gc?: () => void }).gc?.();
  const latency = createHistogram();
  const statuses: Record<string, number> = {};
  let requests = 0;
  let errors = 0;
  let mismatches = 0;
  let firstError: string | undefined;
  let seq = job.seq;
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const until = started + job.durationMs;
  const loop = async () => {
    while (performance.now() < until) {
      const r = requestFor(job, seq++);
      const t0 = performance.now();
      try {
        const res = await pool!.request({
          path: r.path,
          method: job.method,
          headers: job.headers,
          ...(r.body === undefined ? {} : { body: r.body }),
        });
        const hash = createHash('sha1');
        for await (const chunk of res.body) hash.update(chunk as Buffer);
        latency.record(Math.max(1, Math.round((performance.now() - t0) * 1000)));
        requests += 1;
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        if (res.statusCode !== job.expectStatus) {
          errors += 1;
          firstError ??= `status ${res.statusCode}`;
        } else if (job.expectSha1 && hash.digest('hex') !== job.expectSha1) mismatches += 1;
      } catch (e) {
        errors += 1;
        firstError ??= String(e);
      }
    }
  };
  await Promise.all(Array.from({ length: job.connections }, loop));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    requests,
    seconds,
    rps: requests / seconds,
    p50Ms: latency.count > 0 ? latency.percentile(50) / 1000 : Number.NaN,
    p99Ms: latency.count > 0 ? latency.percentile(99) / 1000 : Number.NaN,
    errors,
    mismatches,
    statuses,
    driverCpuMicros: cpu.user + cpu.system,
    nextSeq: seq,
    ...(firstError ? { firstError } : {}),
  };
}

// Forked by the harness: one job per message, one result back.
if (process.send) {
  const pools: Pools = new Map();
  process.on('message', (m: { id: number; job: Job }) => {
    void drive(m.job, pools).then((result) => process.send?.({ id: m.id, result }));
  });
}
