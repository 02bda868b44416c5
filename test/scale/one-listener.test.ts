// An instance listens on one connection. PostgreSQL wakes every listening connection of a database at each NOTIFY,
// whatever its channels, so each listening connection more makes every booking's announcement cost every instance
// another wake-up (bench S5: about 25 µs of PostgreSQL CPU per connection per event). Counted in the database's own
// view of the instance's backends, named by PGAPPNAME; what the one connection hears is checked by the suites of
// the car share registry, the token cache, the relay and the deliveries.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { type Instance, removeInstanceDirs, startInstance } from './support.js';

const NAME = `carshare-one-listener-${randomUUID().slice(0, 8)}`;
let instance: Instance;
let db: pg.Client;

beforeAll(async () => {
  db = new pg.Client({ connectionString: inject('databaseUrl') });
  await db.connect();
  instance = await startInstance('one-listener', {
    OPS_EMAIL: 'ops@example.com',
    OPS_PASSWORD: 'operator passphrase for tests',
    PGAPPNAME: NAME,
  });
});

afterAll(async () => {
  await instance?.proc.stop('SIGKILL');
  await db?.end();
  removeInstanceDirs();
});

it('keeps one listening connection for car shares, tokens, the outbox relay and the deliveries', async () => {
  const backends = async () =>
    (
      await db.query<{ query: string }>(
        `select query from pg_stat_activity where application_name = $1 and backend_type = 'client backend'`,
        [NAME],
      )
    ).rows.map((r) => r.query);
  // Its connections are open (the pool's, the relay's lead, the listener) once it answers; each LISTEN is the last
  // statement its listening connection ran.
  const listening = (await backends()).filter((q) => /^listen /i.test(q.trim()));
  expect((await backends()).length).toBeGreaterThan(1);
  expect(listening).toHaveLength(1);
});
