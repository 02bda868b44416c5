// Where the service's memory goes under load, per scenario (not a test: it prints, it asserts nothing). Each
// scenario gets a fresh service process (so no scenario's peak carries into the next), compiled and started with
// the Node flags of `npm start` (`startFlags()`), driven by 100 keep-alive connections; RSS, V8's heap (used, total,
// new and old space), memory outside it and the process's CPU are sampled every 200 ms.
// `npx tsx test/bench/memory.ts [--cars 1000] [--duration 8] [--only S1,S1-27,S2,S3] [--one-process [--rest 5]]`;
// `MEMORY_NODE_OPTIONS` adds flags.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, fetch } from 'undici';
import { loadCertificate } from '../../src/tls.js';
import { freePort } from '../support/port.js';
import type { ProbeStats } from './probe.js';
import {
  buildCompiled,
  cpuOf,
  serviceEnv,
  startDriver,
  startEnv,
  startFlags,
  startVariant,
} from './processes.js';
import { createDatabase, prepare, readerToken } from './setup.js';

const { values: a } = parseArgs({
  options: {
    cars: { type: 'string', default: '1000' },
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '100' },
    only: { type: 'string', default: 'S2,S3,S1' },
    // Node flags to compare, `;`-separated (`--flags ';--max-semi-space-size=16'`: none against that one); each
    // scenario runs every set in turn, `--rounds` times, so that the machine's load falls on all of them alike.
    flags: { type: 'string', default: '' },
    rounds: { type: 'string', default: '1' },
    // One service process serves every scenario in turn (as `npm run bench`'s does), instead of one each.
    'one-process': { type: 'boolean', default: false },
    // Seconds the one process rests between scenarios (as the bench's does while the other variants' trials run);
    // its resident size after the rest is logged.
    rest: { type: 'string', default: '0' },
  },
});
const size = { cars: Number(a.cars), bookings: 10 * Number(a.cars), users: 200 };
const server = process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
const log = (line: string) => process.stderr.write(`${line}\n`);
const S1 = '/api/cars?limit=100&embed=all';

/** Resident MB by kind of mapping in /proc/<pid>/smaps: file-backed by file name, `[heap]`, anonymous. */
function residentByMapping(pid: number): string {
  const sums = new Map<string, number>();
  let name = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) name = (head[1] ?? '').split('/').at(-1) || 'anonymous';
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) sums.set(name, (sums.get(name) ?? 0) + Number(rss[1]));
  }
  return [...sums]
    .sort((x, y) => y[1] - x[1])
    .slice(0, 8)
    .map(([n, kb]) => `${n} ${Math.round(kb / 1024)}`)
    .join(' · ');
}

buildCompiled();
const dataDir = mkdtempSync(join(tmpdir(), 'carshare-memory-'));
const tls = await loadCertificate({ dataDir });
const database = await createDatabase(server);
const driver = startDriver();
try {
  const prepared = await prepare(database.url, dataDir, size);
  const rows: string[] = [];
  const runs = a.only
    .split(',')
    .flatMap((id) =>
      Array.from({ length: Number(a.rounds) }, () =>
        a.flags.split(';').map((flags) => ({ id, flags })),
      ).flat(),
    );
  // Starts the service with `npm start`'s flags and environment, and those compared.
  const start = async (id: string, flags: string) => {
    const extra = process.env.MEMORY_NODE_OPTIONS ?? '';
    const port = await freePort();
    const origin = `https://localhost:${port}`;
    const svc = await startVariant(
      id,
      'variants/ours.ts',
      {
        ...serviceEnv({ databaseUrl: database.url, dataDir, port, logLevel: 'info' }),
        ...startEnv(),
        ...(extra ? { NODE_OPTIONS: extra } : {}),
        // `NAME=value` among the compared flags is an environment variable.
        ...Object.fromEntries(
          flags
            .split(/\s+/)
            .filter((w) => /^[A-Z_]+=/.test(w))
            .map((w) => w.split('=')),
        ),
      },
      true,
      // `npm start`'s flags, then those compared.
      [...startFlags(), ...flags.split(/\s+/).filter((w) => w.startsWith('--'))],
    );
    return { svc, origin };
  };
  const measure = async (
    svc: Awaited<ReturnType<typeof start>>['svc'],
    origin: string,
    id: string,
    flags: string,
  ) => {
    const token = await readerToken(origin, dataDir, prepared.reader);
    const headers = { authorization: `Bearer ${token}` };
    const agent = new Agent({ connect: { ca: tls.cert } });
    const first = await fetch(`${origin}${S1}`, { headers, dispatcher: agent });
    const page = (await first.json()) as { Cars: { Id: string }[] };
    const etag = first.headers.get('etag')!;
    await agent.close();
    const job = {
      S1: { path: S1, generator: { kind: 'unique' as const }, headers, expectStatus: 200 },
      'S1-27': {
        path: '/api/cars?limit=27&embed=all',
        generator: { kind: 'unique' as const },
        headers,
        expectStatus: 200,
      },
      S2: {
        path: `/api/cars/${page.Cars[0]!.Id}`,
        generator: { kind: 'unique' as const },
        headers,
        expectStatus: 200,
      },
      S3: {
        path: S1,
        generator: { kind: 'fixed' as const },
        headers: { ...headers, 'if-none-match': etag },
        expectStatus: 304,
      },
    }[id];
    if (!job) throw new Error(`unknown scenario ${id}`);
    const base = {
      origin,
      ca: tls.cert,
      method: 'GET' as const,
      connections: Number(a.connections),
      seq: 0,
      ...job,
    };
    await driver.run({ ...base, durationMs: 2000 });
    const idle = await svc.stats();
    let peak: ProbeStats = idle;
    let done = false;
    const sampler = (async () => {
      while (!done) {
        const s = await svc.stats();
        if (s.rss > peak.rss) peak = s;
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const cpu0 = cpuOf([svc.pid]).get(svc.pid)!;
    // MEMORY_SNAPSHOT=1 (with `--heapsnapshot-signal=SIGUSR2` in MEMORY_NODE_OPTIONS): what is live halfway.
    const snapshot = process.env.MEMORY_SNAPSHOT
      ? setTimeout(() => process.kill(svc.pid, 'SIGUSR2'), Number(a.duration) * 500)
      : undefined;
    // MEMORY_SMAPS=1: where the resident memory is, by mapping (the binary, the heap, anonymous maps), halfway.
    const smaps = process.env.MEMORY_SMAPS
      ? setTimeout(() => log(`  ${id} halfway: ${residentByMapping(svc.pid)}`), Number(a.duration) * 500)
      : undefined;
    const r = await driver.run({ ...base, durationMs: Number(a.duration) * 1000, seq: 1_000_000 });
    clearTimeout(smaps);
    clearTimeout(snapshot);
    const cpu = cpuOf([svc.pid]).get(svc.pid)! - cpu0;
    done = true;
    await sampler;
    const mb = (b = 0) => Math.round(b / 1_048_576);
    rows.push(
      `| ${id} | ${flags || '–'} | ${Math.round(r.rps)} | ${r.p50Ms.toFixed(1)} | ${Math.round(cpu / Math.max(1, r.requests))} | ${r.errors} | ${mb(idle.rss)} | ${mb(peak.rss)} | ${mb(peak.heapUsed)} | ${mb(peak.heapTotal)} | ${mb(peak.spaces.new_space)} | ${mb(peak.spaces.old_space)} | ${mb((peak.spaces.large_object_space ?? 0) + (peak.spaces.new_large_object_space ?? 0))} | ${mb(peak.external)} | ${mb(peak.rss - peak.heapTotal - peak.external)} |`,
    );
    log(rows.at(-1)!);
    if (r.firstError) log(`  ${id}: ${r.errors} errors, the first: ${r.firstError}`);
  };
  if (a['one-process']) {
    for (const flags of Array.from({ length: Number(a.rounds) }, () => a.flags.split(';')).flat()) {
      const { svc, origin } = await start('ours', flags);
      try {
        for (const id of a.only.split(',')) {
          await measure(svc, origin, id, flags);
          if (Number(a.rest) > 0) {
            await new Promise((r) => setTimeout(r, Number(a.rest) * 1000));
            log(
              `  ${flags || '–'} after ${id} and ${a.rest} s at rest: RSS ${Math.round((await svc.stats()).rss / 1_048_576)} MB`,
            );
          }
        }
      } finally {
        await svc.stop();
      }
    }
  } else {
    for (const { id, flags } of runs) {
      const { svc, origin } = await start(id, flags);
      try {
        await measure(svc, origin, id, flags);
      } finally {
        await svc.stop();
      }
    }
  }
  process.stdout.write(
    [
      '| Scenario | flags | req/s | p50 ms | CPU µs/req | errors | RSS after warm-up MB | peak RSS MB | heap used | heap total | new space | old space | large objects | external | RSS − heap − external |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
    ].join('\n'),
  );
} finally {
  driver.stop();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
