// The instance's one listening connection (src/events/listen.ts): channels given at the start and channels added
// later (`hear`, the outbox relay's and the delivery runtime's), before or after it connected, are all heard on it;
// each handler is first called without a payload (anything may have changed while it was not heard); a handler
// that stopped hearing is not called again.
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
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
  await waitFor(
    () =>
      listener.sync().then(
        () => true,
        () => false,
      ),
    { what: 'the listener connected' },
  );
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
