// One scenario, measured: every variant's answer checked first, then warm-up, then trials interleaved
// (A, B, C, then B, C, A, ...), each trial's throughput, latency, CPU (process and its PostgreSQL backends)
// and SQL statements taken as deltas around the load generator's run.
import type pg from 'pg';
import type { Job, LoadResult } from './driver.js';
import type { Driver, Variant } from './processes.js';
import { cpuOf } from './processes.js';
import type { Request, Scenario } from './scenarios.js';

export interface Settings {
  durationMs: number;
  warmupMs: number;
  trials: number;
  connections: number;
}

export interface Trial extends LoadResult {
  serverCpuMicros: number;
  pgCpuMicros: number;
  /**
   * The same PostgreSQL CPU by the process whose backends spent it (`application_name`, PGAPPNAME: processes.ts):
   * where a request's PostgreSQL work runs when another process answers its NOTIFYs (the relay's lead).
   */
  pgCpuByProcess: Record<string, number>;
  statements: number;
}

export interface VariantResult {
  label: string;
  process: string;
  trials: Trial[];
  /** Medians over trials, and totals per request. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  serverCpuPerRequest: number;
  totalCpuPerRequest: number;
  statementsPerRequest: number;
  errors: number;
  mismatches: number;
  invalid?: string;
}

export interface Bench {
  processes: Map<string, Variant>;
  driver: Driver;
  db: pg.Client;
  ca: string;
  tokens: { reader: string; user: string };
  /** Processes that answer other tokens (another database's authorization server): theirs, by process name. */
  tokensOf: Map<string, { reader: string; user: string }>;
  /**
   * The database whose PostgreSQL backends count toward a trial of a process: the bench's, or the landed code's for
   * its own processes. Only the trial's database counts, and only client backends: the other database's instances
   * (their timers, relays and token checks) and autovacuum are not the measured request's work.
   */
  dbOf(process: string): string;
  /** The car share the scenarios run in. */
  carShareId: string;
  settings: Settings;
  /** Booking slots are never reused: each run starts where the last one ended. */
  seq: number;
}

export const PEER_CONNECTIONS = 20;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** CPU (µs) of the database's client backends by pid, and the process each serves. */
async function pgCpu(
  b: Bench,
  dbName: string,
): Promise<{ cpu: Map<number, number>; by: Map<number, string> }> {
  const r = await b.db.query<{ pid: number; application_name: string }>(
    `select pid, application_name from pg_stat_activity where datname = $1 and backend_type = 'client backend'`,
    [dbName],
  );
  return {
    cpu: cpuOf(r.rows.map((x) => x.pid)),
    by: new Map(r.rows.map((x) => [x.pid, x.application_name || 'unnamed'])),
  };
}

export function jobFor(b: Bench, v: Variant, r: Request, durationMs: number): Job {
  return {
    origin: `https://localhost:${v.port}`,
    ca: b.ca,
    method: r.method,
    path: r.path,
    headers: { authorization: `Bearer ${(b.tokensOf.get(v.name) ?? b.tokens)[r.token]}`, ...r.headers },
    ...(r.body === undefined ? {} : { body: r.body }),
    generator: r.generator,
    // The peer answers a page in seconds; at 100 connections a trial would mostly wait for its stragglers.
    connections:
      r.connections ??
      (v.name === 'P1' ? Math.min(PEER_CONNECTIONS, b.settings.connections) : b.settings.connections),
    durationMs,
    seq: b.seq,
    expectStatus: r.expectStatus,
  };
}

/**
 * Baselines are charged their own backends only. What the service's instances on the same database do meanwhile
 * is the service's work: above all its relay answering each NOTIFY of L1's outbox insert, which the landed relay
 * did with a look costing 340–580 µs per L1 request and today's with one cheap round, so L1-before carried a fifth
 * more than L1 and the no-regression ratio (ours / L1 against ours-before / L1-before) read the landed relay's cost
 * as the yardstick's (docs/performance.md, sixth day). The service's trials still count every backend of their
 * database: its relay's lead and its idle instances' wake-ups are what a booking costs the deployment.
 */
const BASELINES = new Set(['L1', 'L1-before']);

async function trial(b: Bench, v: Variant, job: Job): Promise<Trial> {
  const dbName = b.dbOf(v.name);
  const [s0, p0] = [await v.stats(), await pgCpu(b, dbName)];
  const result = await b.driver.run(job);
  const [s1, p1] = [await v.stats(), await pgCpu(b, dbName)];
  b.seq = result.nextSeq;
  let pgCpuMicros = 0;
  const pgCpuByProcess: Record<string, number> = {};
  for (const [pid, cpu] of p1.cpu) {
    const spent = cpu - (p0.cpu.get(pid) ?? 0);
    const by = p1.by.get(pid)!;
    if (!BASELINES.has(v.name) || by === v.name) pgCpuMicros += spent;
    pgCpuByProcess[by] = (pgCpuByProcess[by] ?? 0) + spent;
  }
  return {
    ...result,
    serverCpuMicros: s1.cpuMicros - s0.cpuMicros,
    pgCpuMicros,
    pgCpuByProcess,
    statements: s1.statements - s0.statements,
  };
}

const byProcess = (t: Trial): string =>
  Object.entries(t.pgCpuByProcess)
    .filter(([, cpu]) => cpu > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([name, cpu]) => `${name} ${(cpu / t.requests).toFixed(0)}`)
    .join(', ');

/** Runs the scenario's trials; `expected` holds each valid variant's body hash (undefined: status only). */
export async function measure(
  b: Bench,
  s: Scenario,
  expected: Map<string, string | undefined>,
  invalid: Map<string, string>,
  log: (line: string) => void,
): Promise<VariantResult[]> {
  const valid = s.variants.filter((v) => !invalid.has(v.label));
  const jobs = new Map(
    valid.map((v) => {
      const p = b.processes.get(v.process)!;
      const sha = expected.get(v.label);
      return [
        v.label,
        (ms: number): Job => ({ ...jobFor(b, p, v.request, ms), ...(sha ? { expectSha1: sha } : {}) }),
      ];
    }),
  );
  for (const v of valid) {
    const r = await b.driver.run(jobs.get(v.label)!(b.settings.warmupMs));
    b.seq = r.nextSeq;
  }
  const trials = new Map<string, Trial[]>(valid.map((v) => [v.label, []]));
  const rounds = Math.max(b.settings.trials, s.minTrials ?? 0);
  for (let t = 0; t < rounds; t++) {
    // Rotate the order so no variant always runs first (or right after the heaviest one).
    const order = valid.map((_, k) => valid[(k + t) % valid.length]!);
    for (const v of order) {
      // A second of the same load first: connections open, caches and JIT warm, whatever ran before settled.
      b.seq = (await b.driver.run(jobs.get(v.label)!(1000))).nextSeq;
      await new Promise((r) => setTimeout(r, 300));
      const result = await trial(b, b.processes.get(v.process)!, jobs.get(v.label)!(b.settings.durationMs));
      trials.get(v.label)!.push(result);
      log(
        `    ${s.id} ${v.label.padEnd(8)} trial ${t + 1}: ${result.rps.toFixed(0)} req/s, p99 ${result.p99Ms.toFixed(1)} ms` +
          (result.errors ? `, ${result.errors} errors (${result.firstError})` : '') +
          (result.mismatches ? `, ${result.mismatches} wrong bodies` : '') +
          `; PostgreSQL µs/req by process: ${byProcess(result)}`,
      );
    }
  }
  return s.variants.map((v) => {
    const ts = trials.get(v.label) ?? [];
    const requests = ts.reduce((a, x) => a + x.requests, 0) || Number.NaN;
    const sum = (f: (x: Trial) => number) => ts.reduce((a, x) => a + f(x), 0);
    return {
      label: v.label,
      process: v.process,
      trials: ts,
      rps: ts.length ? median(ts.map((x) => x.rps)) : Number.NaN,
      p50Ms: ts.length ? median(ts.map((x) => x.p50Ms)) : Number.NaN,
      p99Ms: ts.length ? median(ts.map((x) => x.p99Ms)) : Number.NaN,
      serverCpuPerRequest: sum((x) => x.serverCpuMicros) / requests,
      totalCpuPerRequest: sum((x) => x.serverCpuMicros + x.pgCpuMicros) / requests,
      statementsPerRequest: sum((x) => x.statements) / requests,
      errors: sum((x) => x.errors),
      mismatches: sum((x) => x.mismatches),
      ...(invalid.has(v.label) ? { invalid: invalid.get(v.label)! } : {}),
    };
  });
}
