// Preloaded (`--import`) into every measured process: counts the SQL statements the process sends through `pg`
// (whichever library calls it) and answers the harness's IPC question with them, its CPU time and its RSS.
import { appendFileSync } from 'node:fs';
import { getHeapCodeStatistics, getHeapSpaceStatistics } from 'node:v8';
import pg from 'pg';

let statements = 0;
const query = pg.Client.prototype.query;
// BENCH_SQL_LOG=<file>: every statement's first line too, to see which ones a scenario runs.
const sqlLog = process.env.BENCH_SQL_LOG;
pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
  // A bare protocol message (the token cache's Sync barrier, src/access/sync.barrier.ts) carries no SQL: not a
  // statement. Everything with SQL text, or a named prepared statement, is.
  // A batch of statements sent as one (src/db/scoped-statement.ts: the scope's settings and a statement) counts
  // as the statements it carries.
  const q0 = args[0] as string | { text?: string; name?: string; statements?: number; sql?: string };
  const carried = typeof q0 === 'string' ? undefined : q0.statements;
  if (typeof q0 !== 'string' && q0.text === undefined && q0.name === undefined && carried === undefined)
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  statements += carried ?? 1;
  if (sqlLog) {
    const q = q0;
    const text = typeof q === 'string' ? q : (q.text ?? q.name ?? q.sql ?? '?');
    appendFileSync(sqlLog, `${process.pid} ${text.replace(/\s+/g, ' ').slice(0, 160)}\n`);
  }
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

export interface ProbeStats {
  statements: number;
  /** user + system CPU of the whole process, microseconds */
  cpuMicros: number;
  rss: number;
  heapUsed: number;
  /** The heap V8 holds (used or not), memory outside it (Buffers, TLS), and V8's compiled code and metadata. */
  heapTotal: number;
  external: number;
  codeAndMetadata: number;
  /** Committed size of each V8 heap space (new_space, old_space, large_object_space, ...). */
  spaces: Record<string, number>;
}

// Walking V8's code objects takes tens of milliseconds on a warm service: sampled every second it would be a
// few per cent of the measured process's CPU (and a stall), so it is refreshed at most every 10 s.
let code = getHeapCodeStatistics();
let codeAt = Date.now();
/**
 * CPU the probe itself spent reading memory, left out of `cpuMicros`. The code walk ran at the start of nearly
 * every trial (a process rests while the other variants' trials run) and took a few hundred milliseconds on a
 * warm service, counted in that trial: at 200 bookings a second, a few hundred µs per request of the slowest
 * variants, and less of the faster ones (a CPU profile of S5, 2026-11-29).
 */
let probeCpuMicros = 0;

function memoryOf() {
  const before = process.cpuUsage();
  try {
    return readMemory();
  } finally {
    const spent = process.cpuUsage(before);
    probeCpuMicros += spent.user + spent.system;
  }
}

function readMemory() {
  const m = process.memoryUsage();
  if (Date.now() - codeAt > 10_000) {
    code = getHeapCodeStatistics();
    codeAt = Date.now();
  }
  return {
    rss: m.rss,
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    codeAndMetadata: code.code_and_metadata_size + code.bytecode_and_metadata_size,
    spaces: Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size])),
  };
}

process.on('message', (m: unknown) => {
  if ((m as { type?: string }).type !== 'stats') return;
  const cpu = process.cpuUsage();
  const stats: ProbeStats = {
    statements,
    cpuMicros: cpu.user + cpu.system - probeCpuMicros,
    ...memoryOf(),
  };
  process.send?.({ type: 'stats', id: (m as { id: number }).id, stats });
});
// The IPC channel must not keep a finished process alive.
process.channel?.unref();
