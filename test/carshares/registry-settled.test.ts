// The car share registry's `settled` (CONTRACT §23, §26): once it resolves, every change committed before the call,
// by any process, is in the registry. Requests wait for it before reading their car share, which is what makes a
// suspension (or a reactivation) hold on every instance by the time its answer is sent.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import {
  CAR_SHARE_CHANNEL,
  type CarShareRegistry,
  openCarShareRegistry,
} from '../../src/carshares/registry.js';
import { type Listener, listenForWork } from '../../src/events/listen.js';
import { useHarness } from '../support/harness.js';

const h = useHarness({ resetEach: false });
const id = randomUUID();
let registry: CarShareRegistry;
let listener: Listener;
let other: pg.Client;

beforeAll(async () => {
  other = new pg.Client({ connectionString: inject('databaseUrl') });
  await other.connect();
  await other.query('insert into car_share (id, base_url, host, name) values ($1, $2, $3, $4)', [
    id,
    `https://${id}.cars.example`,
    `${id}.cars.example`,
    'Settled',
  ]);
  registry = await openCarShareRegistry(h.orm, 'https://localhost:8443');
  listener = listenForWork(
    inject('databaseUrl'),
    { [CAR_SHARE_CHANNEL]: () => void registry.refresh() },
    pino({ level: 'silent' }),
  );
  registry.listenWith(() => listener.sync());
  // Listening once its first barrier passes.
  for (let i = 0; i < 50; i++) {
    if (
      await listener.sync().then(
        () => true,
        () => false,
      )
    )
      break;
    await new Promise((ok) => setTimeout(ok, 100));
  }
});
afterAll(async () => {
  await listener?.close();
  await other?.query('delete from car_share where id = $1', [id]);
  await other?.end();
});

/** Another process's change: the row and its NOTIFY in one transaction. */
async function setStatus(status: 'Active' | 'Suspended'): Promise<void> {
  await other.query('begin');
  await other.query('update car_share set status = $2 where id = $1', [id, status]);
  await other.query('select pg_notify($1, $2)', [CAR_SHARE_CHANNEL, id]);
  await other.query('commit');
}

it('knows every change committed before it was called, once it resolves', async () => {
  for (let round = 0; round < 5; round++) {
    await setStatus('Suspended');
    await registry.settled();
    expect(registry.byId(id)?.status, `round ${round}`).toBe('Suspended');
    await setStatus('Active');
    await registry.settled();
    expect(registry.byId(id)?.status, `round ${round}`).toBe('Active');
  }
});

it('says whether the barrier was passed, and its callers in one turn share one wait', async () => {
  const [first, second] = [registry.settled(), registry.settled()];
  expect(first).toBe(second);
  expect(await first).toBe(true);
  // Another turn, another barrier.
  expect(registry.settled()).not.toBe(first);
  const unheard = await openCarShareRegistry(h.orm, 'https://localhost:8443');
  expect(await unheard.settled()).toBe(false);
  unheard.listenWith(() => Promise.reject(new Error('not listening')));
  expect(await unheard.settled()).toBe(false);
});
