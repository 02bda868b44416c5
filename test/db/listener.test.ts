// The instance's one listening connection (src/events/listen.ts): channels given at the start and channels added
// later (`hear`, the outbox relay's and the delivery runtime's), before or after it connected, are all heard on it;
// each handler is first called without a payload (anything may have changed while it was not heard); a handler
// that stopped hearing is not called again; its LISTEN, UNLISTEN and Sync are sent one at a time.
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, expect, inject, it } from 'vitest';
import { listenForWork } from '../../src/events/listen.js';
import { waitFor } from '../support/wait.js';

let notifier: pg.Client;
beforeAll(async () => {
  notifier = new pg.Client({ connectionString: inject('databaseUrl') });
  await notifier.connect();
});
afterAll(() => notifier?.end());

const notify = (channel: string, payload: string) =>
  notifier.query('select pg_notify($1, $2)', [channel, payload]).then(() => undefined);

/** Waits until the listener's connection is open: its barrier then resolves. */
const connected = (listener: ReturnType<typeof listenForWork>) =>
  waitFor(
    () =>
      listener.sync().then(
        () => true,
        () => false,
      ),
    { what: 'the listener connected' },
  );

it('hears channels given, added while connecting and added once connected, on one connection', async () => {
  const heard: string[] = [];
  const on = (channel: string) => (payload?: string) => heard.push(`${channel}:${payload ?? '(connected)'}`);
  const listener = listenForWork(
    inject('databaseUrl'),
    { test_given: on('given') },
    pino({ level: 'silent' }),
  );
  // Added at once: the connection is still being opened.
  listener.hear('test_early', on('early'));
  await connected(listener);
  const stopLate = listener.hear('test_late', on('late'));
  await waitFor(() => heard.includes('late:(connected)'), { what: 'the late channel listened' });
  expect(heard).toEqual(expect.arrayContaining(['given:(connected)', 'early:(connected)']));

  await notify('test_given', 'a');
  await notify('test_early', 'b');
  await notify('test_late', 'c');
  await listener.sync();
  expect(heard.filter((h) => !h.endsWith('(connected)'))).toEqual(['given:a', 'early:b', 'late:c']);

  stopLate();
  await notify('test_late', 'd');
  await listener.sync();
  expect(heard).not.toContain('late:d');
  await listener.close();
});

/** What pg knows of a connection: a statement runs until it is ready for a query again; others wait in its queue. */
type Running = pg.Client & { readyForQuery: boolean; _queryQueue: unknown[] };
const query = pg.Client.prototype.query;
afterEach(() => {
  pg.Client.prototype.query = query;
});

it('sends the LISTENs, UNLISTENs and Syncs asked for together one at a time (pg 9 refuses a query while one runs)', async () => {
  // Each statement asked for while its connection runs another (pg 8 queues it, and warns).
  const overlapping: unknown[] = [];
  pg.Client.prototype.query = function (this: Running, ...args: unknown[]) {
    if (this !== notifier && (!this.readyForQuery || this._queryQueue.length > 0)) overlapping.push(args[0]);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  const heard: string[] = [];
  const listener = listenForWork(inject('databaseUrl'), {}, pino({ level: 'silent' }));
  await connected(listener);

  // As the delivery runtime starts (two channels at once) while a request waits on the barrier.
  const channels = ['test_turn_a', 'test_turn_b', 'test_turn_c'];
  const barrier = listener.sync();
  await new Promise((r) => setImmediate(r));
  const stops = channels.map((channel) =>
    listener.hear(channel, (payload) => heard.push(`${channel}:${payload ?? '(connected)'}`)),
  );
  await barrier;
  await waitFor(() => heard.length === channels.length, { what: 'the channels listened' });
  for (const channel of channels) await notify(channel, 'x');
  await listener.sync();
  expect(heard.filter((h) => h.endsWith(':x'))).toEqual(channels.map((c) => `${c}:x`));

  // As the service stops: the relay's and the delivery runtime's channels at once, with a barrier asked for.
  const last = listener.sync();
  for (const stop of stops) stop();
  await last;
  for (const channel of channels) await notify(channel, 'y');
  await listener.sync();
  expect(heard.filter((h) => h.endsWith(':y'))).toEqual([]);
  expect(overlapping).toEqual([]);
  await listener.close();
});
