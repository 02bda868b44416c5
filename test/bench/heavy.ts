// CONTRACT §13 "Memory", measured (not a test: it prints, it asserts nothing): the service in its own process on
// a seeded database; the largest document the limits allow (cost 50,000) runs, alone and two at once, while
// `GET /api/cars?limit=1` is timed every 50 ms and the service's RSS sampled; then the 600-alias document that
// must be refused. `npx tsx test/bench/heavy.ts [--cars 10000]`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, fetch } from 'undici';
import { loadCertificate } from '../../src/tls.js';
import { freePort } from '../support/port.js';
import { serviceEnv, startAsNpmStart } from './processes.js';
import { createDatabase, prepare, readerToken } from './setup.js';

const { values: a } = parseArgs({ options: { cars: { type: 'string', default: '10000' } } });
const size = { cars: Number(a.cars), bookings: 1000, users: 400 };
const server = process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
const log = (line: string) => process.stderr.write(`${line}\n`);

const dataDir = mkdtempSync(join(tmpdir(), 'carshare-heavy-'));
const tls = await loadCertificate({ dataDir });
const database = await createDatabase(server);
const port = await freePort();
const origin = `https://localhost:${port}`;
const agent = new Agent({ connect: { ca: tls.cert }, connections: 8 });
try {
  log(`seeding ${size.cars} cars`);
  const prepared = await prepare(database.url, dataDir, size);
  const svc = await startAsNpmStart({
    ...serviceEnv({ databaseUrl: database.url, dataDir, port, logLevel: 'silent' }),
    // e.g. `--max-semi-space-size=64`: how V8's young generation changes the peak.
    ...(process.env.HEAVY_NODE_OPTIONS ? { NODE_OPTIONS: process.env.HEAVY_NODE_OPTIONS } : {}),
  });
  const token = await readerToken(origin, dataDir, prepared.reader);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const small = async () => {
    const t = performance.now();
    const r = await fetch(`${origin}/api/cars?limit=1`, { headers, dispatcher: agent });
    await r.arrayBuffer();
    return performance.now() - t;
  };
  const graphql = async (query: string) => {
    const t = performance.now();
    const r = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers,
      dispatcher: agent,
      body: JSON.stringify({ query }),
    });
    const bytes = (await r.arrayBuffer()).byteLength;
    return { status: r.status, bytes, ms: Math.round(performance.now() - t) };
  };
  const aliases = (n: number, limit: number) =>
    `{ ${Array.from({ length: n }, (_, i) => `a${i}: cars(limit: ${limit}, offset: ${i * 7}) { nodes { id make model year color seats status description ownerId createdDateUtc } }`).join(' ')} }`;

  const alone: number[] = [];
  for (let i = 0; i < 20; i += 1) alone.push(await small());
  alone.sort((x, y) => x - y);
  log(`GET /api/cars?limit=1 alone: p50 ${Math.round(alone[10]!)} ms, max ${Math.round(alone[19]!)} ms`);
  await graphql(aliases(5, 100));
  const idle = (await svc.stats()).rss;

  const during = async (label: string, work: () => Promise<unknown>) => {
    let done = false;
    const latencies: number[] = [];
    let peak = (await svc.stats()).rss;
    const before = peak;
    const probe = (async () => {
      while (!done) {
        latencies.push(await small());
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const sample = (async () => {
      while (!done) {
        peak = Math.max(peak, (await svc.stats()).rss);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const result = await work();
    done = true;
    await Promise.all([probe, sample]);
    latencies.sort((x, y) => x - y);
    const mb = (b: number) => Math.round(b / 1e6);
    log(
      `${label}: ${JSON.stringify(result)}; GET /api/cars?limit=1 ×${latencies.length} p50 ${Math.round(latencies[latencies.length >> 1] ?? 0)} ms, max ${Math.round(latencies.at(-1) ?? 0)} ms; RSS ${mb(before)} → peak ${mb(peak)} MB (+${mb(peak - before)})`,
    );
  };
  log(`idle RSS ${Math.round(idle / 1e6)} MB`);
  await during('largest allowed (50 × cars(limit: 1000), cost 50,000)', () => graphql(aliases(50, 1000)));
  await during('two of them at once', () =>
    Promise.all([graphql(aliases(50, 1000)), graphql(aliases(50, 1000))]),
  );
  await during('600 × cars(limit: 1000), refused', () => graphql(aliases(600, 1000)));
  await svc.stop();
} finally {
  await agent.close();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
