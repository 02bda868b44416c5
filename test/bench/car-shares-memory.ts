// CONTRACT §26's memory bound (issue 28's goal), measured from outside in `npm run bench`: a fresh service process,
// as `npm start` runs it with certificates from its local CA, serves one car share (discovery, JWKS, one
// client-credentials token, one `GET /api/cars`); its RSS is read; then 1,000 more car shares are made (a row and a
// client application each, as the database's owner, announced by NOTIFY) and each is served the same way; the RSS
// it gained is the figure (at most 150 MB).
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';
import { freePort } from '../support/port.js';
import { serviceEnv, startEnv, startFlags, startVariant, type Variant } from './processes.js';

const SECRET = 'memprobe-secret-memprobe-secret-memprobe-se';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface CarSharesMemory {
  carShares: number;
  beforeMb: number;
  afterMb: number;
  deltaMb: number;
  msPerCarShare: number;
}

export async function measureCarSharesMemory(o: {
  databaseUrl: string;
  carShares: number;
  processes: Map<string, Variant>;
  log: (line: string) => void;
}): Promise<CarSharesMemory> {
  o.log(`  M1: the RSS a fresh service gains serving ${o.carShares} car shares after one`);
  const dataDir = mkdtempSync(join(tmpdir(), 'carshare-bench-m1-'));
  const db = new pg.Client({ connectionString: o.databaseUrl });
  await db.connect();
  try {
    const port = await freePort();
    const env = serviceEnv({ databaseUrl: o.databaseUrl, dataDir, port, logLevel: 'info' });
    // No TLS_CERT: each car share's host gets its certificate from the local CA, as §19 makes it.
    delete (env as Record<string, string | undefined>).TLS_CERT;
    delete (env as Record<string, string | undefined>).TLS_KEY;
    const v = await startVariant(
      'ours-m1',
      'variants/ours.ts',
      { ...startEnv(), ...env },
      true,
      startFlags(),
    );
    o.processes.set('ours-m1', v);
    // The local CA is made as the service starts, not before it is ready; `localhost` keeps its self-signed one.
    const caFile = join(dataDir, 'tls', 'ca.crt');
    for (let i = 0; i < 100 && !existsSync(caFile); i++) await sleep(100);
    const ca = [readFileSync(caFile, 'utf8'), readFileSync(join(dataDir, 'tls', 'localhost.crt'), 'utf8')];
    const hash = createHash('sha256').update(SECRET).digest('base64url');
    const client = (carShareId: string, i: number) =>
      db.query(
        `insert into client_application (id, car_share_id, name, client_id, secret_hash, grant_types, redirect_uris,
           allowed_scopes, status, created_date_utc, last_modified_date_utc)
         values ($1, $2, 'probe', $3, $4, '["client_credentials"]', '[]', '["cars:read"]', 'Active', now(), now())`,
        [randomUUID(), carShareId, `ca_m1_${i}`, hash],
      );
    const call = async (host: string, agent: Agent, path: string, init: Record<string, string> = {}) => {
      const r = await request(`https://127.0.0.1:${port}${path}`, {
        method: init.body ? 'POST' : 'GET',
        headers: {
          host: `${host}:${port}`,
          ...(init.authorization ? { authorization: init.authorization } : {}),
          ...(init.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: init.body ?? null,
        dispatcher: agent,
      });
      const text = await r.body.text();
      if (r.statusCode >= 400) throw new Error(`M1: ${host}${path} ${r.statusCode} ${text.slice(0, 200)}`);
      return text;
    };
    const serve = async (host: string, i: number) => {
      const agent = new Agent({ connect: { ca, servername: host } });
      await call(host, agent, '/api/oauth/.well-known/openid-configuration');
      await call(host, agent, '/api/oauth/jwks');
      const token = JSON.parse(
        await call(host, agent, '/api/oauth/token', {
          authorization: `Basic ${Buffer.from(`ca_m1_${i}:${SECRET}`).toString('base64')}`,
          body: 'grant_type=client_credentials&scope=cars%3Aread',
        }),
      ).access_token as string;
      await call(host, agent, '/api/cars', { authorization: `Bearer ${token}` });
      await agent.close();
    };
    const rssMb = async () => (await v.stats()).rss / 1_048_576;

    const dflt = (await db.query<{ id: string }>('select id from car_share where is_default')).rows[0]!.id;
    await client(dflt, -1);
    await serve('localhost', -1);
    await sleep(3000);
    const beforeMb = await rssMb();
    for (let i = 0; i < o.carShares; i++) {
      const id = randomUUID();
      await db.query('insert into car_share (id, base_url, host, name) values ($1, $2, $3, $4)', [
        id,
        `https://m1-${i}.localhost:${port}`,
        `m1-${i}.localhost`,
        `Car share ${i}`,
      ]);
      await client(id, i);
    }
    await db.query(`select pg_notify('carshare_car_share', '')`);
    await sleep(2000);
    const t0 = performance.now();
    for (let i = 0; i < o.carShares; i++) await serve(`m1-${i}.localhost`, i);
    const msPerCarShare = (performance.now() - t0) / o.carShares;
    await sleep(5000);
    const afterMb = await rssMb();
    await v.stop();
    o.processes.delete('ours-m1');
    const r = { carShares: o.carShares, beforeMb, afterMb, deltaMb: afterMb - beforeMb, msPerCarShare };
    o.log(
      `    M1: ${beforeMb.toFixed(1)} → ${afterMb.toFixed(1)} MB, ${msPerCarShare.toFixed(1)} ms a car share`,
    );
    return r;
  } finally {
    await db.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
