// CONTRACT §28, measured from outside on the built service (not a test: it prints, it asserts nothing). The
// service runs as `npm start` runs it, on a seeded database; every request below is anonymous. It prints, for each
// hostile input, the status and the time it took (and how long /healthz waited meanwhile), then what 5,000 junk
// requests did to /metrics and to resident memory. `npx tsx test/bench/hostile.ts [--cars 2000]`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, fetch } from 'undici';
import { loadCertificate } from '../../src/tls.js';
import { freePort } from '../support/port.js';
import { buildCompiled, serviceEnv, startAsNpmStart } from './processes.js';
import { createDatabase, prepare } from './setup.js';

const { values: a } = parseArgs({ options: { cars: { type: 'string', default: '2000' } } });
const size = { cars: Number(a.cars), bookings: 1000, users: 400 };
const server = process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
const log = (line: string) => process.stdout.write(`${line}\n`);

/** `query{me{...F<n>}}` where each fragment spreads the one before twice: 2^n selections from ~40 bytes a level. */
export function fragmentDoubling(levels: number, alias = 'x'): string {
  const fragments = [`fragment F0 on UserAccount{${alias}:id username}`];
  for (let i = 1; i <= levels; i += 1)
    fragments.push(`fragment F${i} on UserAccount{...F${i - 1} ...F${i - 1}}`);
  return `query{me{...F${levels}}} ${fragments.join(' ')}`;
}

buildCompiled();
const dataDir = mkdtempSync(join(tmpdir(), 'carshare-hostile-'));
const tls = await loadCertificate({ dataDir });
const database = await createDatabase(server);
const port = await freePort();
const origin = `https://localhost:${port}`;
const agent = new Agent({ connect: { ca: tls.cert }, connections: 16 });
try {
  log(`seeding ${size.cars} cars`);
  await prepare(database.url, dataDir, size);
  const svc = await startAsNpmStart({
    ...serviceEnv({ databaseUrl: database.url, dataDir, port, logLevel: 'silent' }),
    // The bench lifts every limit, so that the inputs below reach the code they aim at (not only the rate
    // limiter); sign-ups keep the default of 10 a minute, to show aliased sign-ups counted one by one.
    RATE_LIMIT_AUTH_PER_MINUTE: '10',
  });

  /** Sends one request while /healthz is asked every 50 ms; the request's status and time, and /healthz's worst. */
  const timed = async (
    label: string,
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: string },
  ) => {
    let done = false;
    let worst = 0;
    const probe = (async () => {
      while (!done) {
        const t = performance.now();
        await (await fetch(`${origin}/healthz`, { dispatcher: agent })).arrayBuffer();
        worst = Math.max(worst, performance.now() - t);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const t = performance.now();
    const r = await fetch(`${origin}${path}`, { ...init, dispatcher: agent });
    const body = await r.text();
    const ms = performance.now() - t;
    done = true;
    await probe;
    const code = /"(?:ErrorCode|code)":"(\w+)"/.exec(body)?.[1] ?? '';
    log(
      `| ${label} | ${(init.body ?? path).length.toLocaleString('en')} B | ${r.status} ${code} | ${Math.round(ms)} ms | ${Math.round(worst)} ms |`,
    );
  };
  const graphql = (query: string) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  const form = (body: string) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  const json = (value: unknown) => ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value),
  });

  log('\n| Input (anonymous) | Size | Answer | Time | /healthz worst meanwhile |\n|---|---:|---|---:|---:|');
  for (const levels of [20, 26, 30, 60])
    await timed(`fragment doubling, ${levels} levels`, '/graphql', graphql(fragmentDoubling(levels)));
  await timed('fragment doubling, 30 levels, another alias', '/graphql', graphql(fragmentDoubling(30, 'y')));
  const schemaQuery = '__schema{types{name fields{name type{name ofType{name}}}}}';
  await timed(
    '205 aliased __schema',
    '/graphql',
    graphql(`{${Array.from({ length: 205 }, (_, i) => `s${i}:${schemaQuery}`).join(' ')}}`),
  );
  await timed(
    'sign-up e-mail a@ + a. × 32k + @',
    '/api/useraccounts',
    json({
      Username: `a@${'a.'.repeat(32_000)}@`,
      Password: 'a long and unusual passphrase',
      FirstName: 'A',
      LastName: 'B',
    }),
  );
  const signUp = (i: number) =>
    `u${i}:createUserAccount(input:{username:"alias${i}@example.com",password:"a long and unusual passphrase",firstName:"A",lastName:"B"}){id}`;
  await timed(
    '90 aliased createUserAccount',
    '/graphql',
    graphql(`mutation{${Array.from({ length: 90 }, (_, i) => signUp(i)).join(' ')}}`),
  );
  const digits = '1'.repeat(64 * 1024);
  await timed(
    'form latitude of 64k digits',
    '/api/cars',
    form(`Make=VW&Model=Golf&HomeLocation.Latitude=${digits}`),
  );
  await timed(
    'form latitude of 64k digits and a letter',
    '/api/cars',
    form(`HomeLocation.Latitude=${digits}x`),
  );
  await timed('near of 15k digits', `/api/cars?near=${'1'.repeat(15_000)}x,1`, {});

  // 5,000 junk requests: /metrics and resident memory before and after.
  const metrics = async () => {
    const text = await (await fetch(`${origin}/metrics`, { dispatcher: agent })).text();
    const lines = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    return {
      bytes: text.length,
      series: lines.length,
      names: new Set(lines.map((l) => l.replace(/ \S+$/, ''))),
    };
  };
  const warm = async (n: number, path: (i: number) => string) => {
    for (let i = 0; i < n; i += 100)
      await Promise.all(
        Array.from({ length: Math.min(100, n - i) }, async (_, j) => {
          const r = await fetch(`${origin}${path(i + j)}`, { dispatcher: agent });
          await r.arrayBuffer();
        }),
      );
  };
  const junk = (i: number) =>
    [
      `/api/cars/${crypto.randomUUID()}`,
      `/api/cars/${i}x${Math.random()}`,
      `/nowhere/${Math.random()}`,
      `/api/bookings/${i}`,
    ][i % 4]!;
  await warm(500, junk);
  await metrics(); // the scrape's own series appear after the first one
  const before = { ...(await metrics()), rss: (await svc.stats()).rss };
  await warm(5_000, junk);
  const after = { ...(await metrics()), rss: (await svc.stats()).rss };
  const mb = (b: number) => Math.round(b / 1_048_576);
  log('\n| 5,000 anonymous junk requests | before | after |\n|---|---:|---:|');
  log(`| /metrics series | ${before.series} | ${after.series} |`);
  log(`| /metrics size | ${before.bytes.toLocaleString('en')} B | ${after.bytes.toLocaleString('en')} B |`);
  log(`| resident memory | ${mb(before.rss)} MB | ${mb(after.rss)} MB |`);
  const added = [...after.names].filter((n) => !before.names.has(n));
  log(`\nSeries added by the 5,000: ${added.length}${added.length ? `\n${added.join('\n')}` : ''}`);
  await svc.stop();
} finally {
  await agent.close();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
