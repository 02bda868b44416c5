// CONTRACT §26's memory bound, measured from outside: the resident memory a running service gains from serving
// 1,000 car shares (discovery, JWKS, one client-credentials token, one `GET /api/cars` each) after serving one.
// Start the service as `npm start` runs it (a fresh database, DATA_DIR, PORT, and rate limits high enough), then:
//   npx tsx test/bench/car-shares-memory.ts <car shares> <pid of the service's node process>
// with DATABASE_URL, DATA_DIR and PORT as the service has them. It inserts the car shares and a client application
// in each as the database's superuser, NOTIFYs the service, and prints RSS before and after (test/bench/README.md).
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { Agent, request } from 'undici';

const N = Number(process.argv[2] ?? 300);
const port = Number(process.env.PORT);
const pid = Number(process.argv[3]);
const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const SECRET = 'memprobe-secret-memprobe-secret-memprobe-se';
const hash = createHash('sha256').update(SECRET).digest('base64url');
async function client(carShareId: string, i: number) {
  await db.query(
    `insert into client_application (id, car_share_id, name, client_id, secret_hash, grant_types, redirect_uris,
       allowed_scopes, status, created_date_utc, last_modified_date_utc)
     values ($1, $2, 'probe', $3, $4, '["client_credentials"]', '[]', '["cars:read"]', 'Active', now(), now())`,
    [randomUUID(), carShareId, `ca_probe_${i}`, hash],
  );
}
async function call(
  host: string,
  agent: Agent,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  const r = await request(`https://127.0.0.1:${port}${path}`, {
    method: (init.method ?? 'GET') as 'GET',
    headers: { host: `${host}:${port}`, ...init.headers },
    body: init.body ?? null,
    dispatcher: agent,
  });
  const text = await r.body.text();
  if (r.statusCode >= 400) throw new Error(`${host}${path} ${r.statusCode} ${text.slice(0, 200)}`);
  return text;
}
async function serve(host: string, agent: Agent, i: number) {
  await call(host, agent, '/api/oauth/.well-known/openid-configuration');
  await call(host, agent, '/api/oauth/jwks');
  const tok = JSON.parse(
    await call(host, agent, '/api/oauth/token', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`ca_probe_${i}:${SECRET}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials&scope=cars%3Aread',
    }),
  ).access_token;
  await call(host, agent, '/api/cars', { headers: { authorization: `Bearer ${tok}` } });
}
await db.connect();
const dflt = (await db.query('select id from car_share where is_default')).rows[0].id;
await client(dflt, -1);
const base = new Agent({ connect: { rejectUnauthorized: false, servername: 'localhost' } });
await serve('localhost', base, -1);
await new Promise((r) => setTimeout(r, 3000));
const before = rss();
const ids: string[] = [];
for (let i = 0; i < N; i++) {
  const id = randomUUID();
  ids.push(id);
  await db.query('insert into car_share (id, base_url, host, name) values ($1, $2, $3, $4)', [
    id,
    `https://cs-${i}.localhost:${port}`,
    `cs-${i}.localhost`,
    `Car share ${i}`,
  ]);
  await client(id, i);
}
await db.query(`select pg_notify('carshare_car_share', '')`);
await new Promise((r) => setTimeout(r, 2000));
const ca = readFileSync(`${process.env.DATA_DIR}/tls/ca.crt`, 'utf8');
const t0 = Date.now();
for (let i = 0; i < N; i++) {
  const agent = new Agent({ connect: { ca, servername: `cs-${i}.localhost` } });
  await serve(`cs-${i}.localhost`, agent, i);
  await agent.close();
}
const ms = Date.now() - t0;
await new Promise((r) => setTimeout(r, 5000));
const after = rss();
console.log(
  JSON.stringify({
    N,
    beforeMB: before.toFixed(1),
    afterMB: after.toFixed(1),
    deltaMB: (after - before).toFixed(1),
    msPerCarShare: (ms / N).toFixed(1),
  }),
);
await db.end();
