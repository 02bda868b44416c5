// `npm run bench`: seeds a fresh database, starts the service, its baselines (L0, L1) and the idiomatic peer
// (P1) as processes of their own, drives each scenario from a separate load-generator process, interleaved,
// and prints (and writes to bench-results/) the table of ratios and the goals of issue 8.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadCertificate } from '../../src/tls.js';
import { measureCarSharesMemory } from './car-shares-memory.js';
import { type Answer, checkScenario, fetchOnce } from './check.js';
import { carDocuments, sdlSchema } from './documents.js';
import { runDurability } from './durability.js';
import { LANDED_BEFORE_CAR_SHARES, type Landed, startLanded } from './landed.js';
import { type Bench, measure, PEER_CONNECTIONS } from './measure.js';
import { buildCompiled, root, startDriver, startVariant, type Variant } from './processes.js';
import { runRace } from './race.js';
import { goals, goalTable, type Results, table, writeJson } from './report.js';
import { scenarios } from './scenarios.js';
import { createDatabase, prepare } from './setup.js';
import { startAll } from './start.js';
import { runWebhooks } from './webhooks.js';

const { values: a } = parseArgs({
  options: {
    cars: { type: 'string', default: '10000' },
    bookings: { type: 'string', default: '100000' },
    users: { type: 'string', default: '2000' },
    duration: { type: 'string', default: '8' },
    // Long enough that the first scenario (S2) does not measure processes still warming up: with 4 s its first
    // trial cost every service variant 20-30 % more CPU per request than its third.
    warmup: { type: 'string', default: '8' },
    trials: { type: 'string', default: '3' },
    connections: { type: 'string', default: '100' },
    only: { type: 'string' },
    /** The code to compare with (issue 28's no-regression goal): a git revision, or `none`. */
    landed: { type: 'string', default: LANDED_BEFORE_CAR_SHARES },
    /** Car shares M1 serves after the first (CONTRACT §26's memory bound). */
    'car-shares': { type: 'string', default: '1000' },
  },
});
const size = { cars: Number(a.cars), bookings: Number(a.bookings), users: Number(a.users) };
const only = a.only ? new Set(a.only.split(',')) : undefined;
const server = process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
const log = (line: string) => process.stderr.write(`${line}\n`);

// The service runs compiled, as `npm start` runs it: built before anything else starts.
log('building dist/ (npm run build)');
buildCompiled();
const dataDir = mkdtempSync(join(tmpdir(), 'carshare-bench-'));
const tls = await loadCertificate({ dataDir });
const certs = {
  TLS_CERT: join(dataDir, 'tls', 'localhost.crt'),
  TLS_KEY: join(dataDir, 'tls', 'localhost.key'),
};
const database = await createDatabase(server);
// Interrupted or crashed: the processes stop and the database is dropped all the same.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
process.once('uncaughtException', (err) => {
  log(`bench failed: ${err.stack ?? err}`);
  void cleanup().finally(() => process.exit(1));
});
const processes = new Map<string, Variant>();
const driver = startDriver();
const db = new pg.Client({ connectionString: database.url });
let landed: Landed | undefined;
try {
  log(
    `carshare bench: ${size.cars} cars, ${size.bookings} bookings, ${size.users} users in ${database.name}`,
  );
  const prepared = await prepare(database.url, dataDir, size);
  await db.connect();
  // What this client writes (S7's subscriptions and events) is the bench car share's.
  await db.query(`select set_config('carshare.car_share_id', $1, false)`, [prepared.carShareId]);

  const { ours, tokens, refresh } = await startAll({
    processes,
    db,
    databaseUrl: database.url,
    dataDir,
    certs,
    ca: tls.cert,
    size,
    prepared,
  });

  const landedRev = a.landed === 'none' ? undefined : a.landed;
  landed = landedRev
    ? await startLanded({ rev: landedRev, server, certs, ca: tls.cert, size, processes, log })
    : undefined;

  const bench: Bench = {
    processes,
    driver,
    db,
    // The landed code's processes (ours-before, L1-before) run on its own database.
    dbOf: (name) => (landed && name.includes('-before') ? landed.dbName : database.name),
    carShareId: prepared.carShareId,
    ca: tls.cert,
    tokens,
    // The token-checking-off twin knows the first tokens only (it maps them to their actors, never expiring).
    tokensOf: new Map([
      ['ours-noauth', tokens],
      ...(landed ? ([['ours-before', landed.tokens]] as const) : []),
    ]),
    settings: {
      durationMs: Number(a.duration) * 1000,
      warmupMs: Number(a.warmup) * 1000,
      trials: Number(a.trials),
      connections: Number(a.connections),
    },
    seq: 0,
  };
  // What L0 replays, and the ETag S3 revalidates: the service's own answer to S1.
  const s1: Answer = await fetchOnce(bench, ours.port, {
    method: 'GET',
    path: '/api/cars?limit=100&embed=all',
    token: 'reader',
    generator: { kind: 'fixed' },
    expectStatus: 200,
  });
  const peerEtag = (
    await fetchOnce(bench, processes.get('P1')!.port, {
      method: 'GET',
      path: '/api/cars?limit=100&embed=all',
      token: 'reader',
      generator: { kind: 'fixed' },
      expectStatus: 200,
    })
  ).headers.etag!;
  const l0File = join(dataDir, 'l0.json');
  writeFileSync(
    l0File,
    JSON.stringify({
      '/api/cars': {
        body: s1.body,
        headers: {
          'content-type': s1.headers['content-type'],
          'cache-control': s1.headers['cache-control'],
          vary: s1.headers.vary,
        },
        etag: s1.headers.etag,
      },
    }),
  );
  processes.set('L0', await startVariant('L0', 'variants/l0.ts', { ...certs, L0_RESPONSES: l0File }));

  const cars = await db.query<{ id: string }>(
    `select c.id from car c join user_account u on u.car_share_id = c.car_share_id and u.id = c.owner_id
      where c.car_share_id = $1 and c.auto_approve and c.status = 'Listed' and u.status = 'Active'
        and (select count(*) from verification v where v.car_share_id = c.car_share_id
             and v.subject_type = 'Car' and v.subject_id = c.id and v.status = 'Verified') = 2 order by c.id`,
    [prepared.carShareId],
  );
  const from = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 100 * 86_400_000).toISOString();
  const list = scenarios({
    carId: (JSON.parse(s1.body) as { Cars: { Id: string }[] }).Cars[0]!.Id,
    deepOffset: Math.max(0, size.cars - 100),
    etag: s1.headers.etag!,
    peerEtag,
    searchDocument: carDocuments(sdlSchema()).search,
    bookingCars: cars.rows.map((r) => r.id),
    bookingFrom: from,
    landed: landed !== undefined,
  }).filter((s) => !only || only.has(s.id));

  // The service's memory, sampled every second: peaks per scenario, since page sizes differ a thousandfold.
  // Besides RSS and the heap in use: the heap V8 holds, memory outside it, and compiled code, at the RSS peak.
  const memory = new Map<
    string,
    { rssMb: number; heapMb: number; atPeak?: { heapTotalMb: number; externalMb: number; codeMb: number } }
  >();
  let current = '';
  const mb = (bytes: number) => Math.round(bytes / 10_485.76) / 100;
  // Every service process a goal compares with ours is asked the same questions as often (walking V8's code
  // objects is tens of milliseconds of its CPU): only ours' answers are kept.
  const twins = ['ours-rls', 'ours-norls', 'ours-before'].flatMap((n) => processes.get(n) ?? []);
  const sampler = setInterval(() => {
    for (const t of twins) void t.stats().catch(() => undefined);
    void ours.stats().then(
      (s) => {
        const m = memory.get(current) ?? { rssMb: 0, heapMb: 0 };
        const peak = s.rss / 1_048_576 > m.rssMb;
        memory.set(current, {
          rssMb: Math.max(m.rssMb, s.rss / 1_048_576),
          heapMb: Math.max(m.heapMb, s.heapUsed / 1_048_576),
          ...(peak
            ? {
                atPeak: {
                  heapTotalMb: mb(s.heapTotal),
                  externalMb: mb(s.external),
                  codeMb: mb(s.codeAndMetadata),
                },
              }
            : m.atPeak
              ? { atPeak: m.atPeak }
              : {}),
        });
      },
      () => undefined,
    );
  }, 1000);
  const results: Results = new Map();
  const answers = new Map<string, Answer>();
  const freshTokens = async () => {
    bench.tokens = await refresh();
    if (landed) bench.tokensOf.set('ours-before', await landed.refresh());
  };
  for (const s of list) {
    log(`  ${s.id}: ${s.title}`);
    await freshTokens();
    current = s.id;
    const { expected, invalid } = await checkScenario(bench, s, answers);
    for (const [label, why] of invalid) log(`    ${s.id} ${label}: not measured: ${why}`);
    results.set(s.id, await measure(bench, s, expected, invalid, log));
  }
  clearInterval(sampler);
  const s7 = !only || only.has('S7') ? await runWebhooks(bench, database.url, log) : undefined;
  if (!only || only.has('R1')) await freshTokens();
  const r1 =
    !only || only.has('R1')
      ? await runRace(
          bench,
          { port: ours.port, prepared, borrowerToken: bench.tokens.user, carId: cars.rows.at(-1)!.id, from },
          log,
        )
      : undefined;
  const d1 = !only || only.has('D1') ? await runDurability({ server, certs, dataDir, log }) : undefined;
  const m1 =
    !only || only.has('M1')
      ? await measureCarSharesMemory({
          databaseUrl: database.url,
          carShares: Number(a['car-shares']),
          processes,
          log,
        })
      : undefined;

  const gs = goals(results, {
    memory,
    ...(s7 ? { s7: s7.goal } : {}),
    ...(d1 ? { d1 } : {}),
    ...(r1 ? { r1 } : {}),
    ...(m1 ? { m1 } : {}),
  });
  const out = [
    '',
    `Machine: ${(await import('node:os')).cpus()[0]?.model} × ${(await import('node:os')).cpus().length}, Node ${process.version}, ` +
      `${size.cars} cars / ${size.bookings} bookings / ${size.users} users, ${bench.settings.connections} connections, ` +
      `${bench.settings.trials} × ${a.duration} s trials (P1 at ${Math.min(PEER_CONNECTIONS, bench.settings.connections)} connections)`,
    '',
    table(results, memory),
    ...(s7 ? ['', s7.table] : []),
    ...(r1 ? ['', r1.table] : []),
    ...(d1 ? ['', d1.table] : []),
    ...(m1
      ? [
          '',
          `M1: RSS ${m1.beforeMb.toFixed(1)} MB after one car share, ${m1.afterMb.toFixed(1)} MB after ${m1.carShares} more ` +
            `(+${m1.deltaMb.toFixed(1)} MB; ${m1.msPerCarShare.toFixed(1)} ms a car share: discovery, JWKS, token, GET /api/cars)`,
        ]
      : []),
    '',
    goalTable(gs),
    '',
  ].join('\n');
  process.stdout.write(out);
  const file = writeJson(join(root, 'bench-results'), {
    date: new Date().toISOString(),
    size,
    settings: bench.settings,
    results: Object.fromEntries(results),
    s7,
    r1,
    d1,
    m1,
    landed: landedRev ?? null,
    memory: Object.fromEntries(memory),
    goals: gs,
  });
  log(`results written to ${file}`);
} finally {
  await cleanup();
}

async function cleanup(): Promise<void> {
  driver.stop();
  await Promise.all([...processes.values()].map((p) => p.stop()));
  await landed?.cleanup();
  await db.end().catch(() => undefined);
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
