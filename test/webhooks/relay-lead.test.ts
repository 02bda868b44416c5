// The outbox relay's lead (src/events/relay.ts, src/db/session-lead.ts): of several instances on one database, one
// answers the outbox's NOTIFYs and the others look only at their polls; when the lead's instance stops, another
// takes the lead at its next poll and answers from then on. Not observable through the service's interfaces (every
// event is still relayed once either way): what it saves is PostgreSQL's work per event, one look instead of one per
// instance.
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { type Listener, listenForWork } from '../../src/events/listen.js';
import { OUTBOX_CHANNEL, type OutboxRelay, startOutboxRelay } from '../../src/events/relay.js';
import { systemClock } from '../../src/shared/clock.js';
import { fanOutBatch } from '../../src/webhooks/fanout.js';
import { useHarness } from '../support/harness.js';
import { defaultCarShareId } from '../support/scope.js';
import { waitFor } from '../support/wait.js';

const h = useHarness({ resetEach: false });
let notifier: pg.Client;
const running: OutboxRelay[] = [];

beforeAll(async () => {
  notifier = new pg.Client({ connectionString: inject('databaseUrl') });
  await notifier.connect();
});
afterAll(async () => {
  await Promise.all(running.map((r) => r.stop()));
  await notifier?.end();
});

/** A relay whose rounds are counted: the car shares it looked into, since the last `reset`. */
function relay(pollMs: number, listener?: Listener) {
  const looked: string[] = [];
  const r = startOutboxRelay({
    orm: h.orm,
    databaseUrl: inject('databaseUrl'),
    clock: systemClock,
    log: pino({ level: 'silent' }),
    bus: undefined,
    take: (em, opts) => {
      looked.push(String(em.getSessionContext()?.variables?.['carshare.car_share_id']));
      return fanOutBatch(em, opts);
    },
    pollMs,
    listener,
  });
  running.push(r);
  return { relay: r, looked, reset: () => looked.splice(0) };
}

const notify = () =>
  notifier.query(`select pg_notify('carshare_outbox', $1)`, [defaultCarShareId()]).then(() => undefined);

it('one of two instances answers the outbox NOTIFYs; the other waits for its poll', async () => {
  const a = relay(60_000);
  const b = relay(60_000);
  // Their first rounds (each looks across car shares once, and tries to take the lead) are done.
  await new Promise((r) => setTimeout(r, 500));
  a.reset();
  b.reset();
  for (let i = 0; i < 5; i++) await notify();
  // Only the lead listens on the channel; its rounds may take several NOTIFYs in one.
  await waitFor(() => a.looked.length + b.looked.length > 0, { timeoutMs: 5000 });
  await new Promise((r) => setTimeout(r, 300));
  const counts = [a.looked.length, b.looked.length].sort((x, y) => x - y);
  expect(counts[0]).toBe(0);
  expect(counts[1]).toBeGreaterThanOrEqual(1);
  expect(new Set([...a.looked, ...b.looked])).toEqual(new Set([defaultCarShareId()]));
  await Promise.all([a.relay.stop(), b.relay.stop()]);
  running.splice(0);
});

it('when the lead stops, the other instance takes it at its next poll and answers NOTIFYs', async () => {
  const a = relay(300);
  await new Promise((r) => setTimeout(r, 300));
  const b = relay(300);
  await new Promise((r) => setTimeout(r, 500));
  // The first started leads: the second's NOTIFY goes unanswered.
  b.reset();
  await notify();
  await waitFor(() => a.looked.length > 0, { timeoutMs: 5000 });
  expect(b.looked).toEqual([]);

  await a.relay.stop();
  b.reset();
  // Within a poll or two the survivor leads; from then on a NOTIFY alone starts a round.
  await waitFor(
    async () => {
      await notify();
      return b.looked.includes(defaultCarShareId());
    },
    { timeoutMs: 5000, everyMs: 100, what: 'the second instance to answer a NOTIFY' },
  );
});

/** A listening connection whose channels heard at the moment are recorded (`hear` until its stop). */
function recordingListener() {
  const real = listenForWork(inject('databaseUrl'), {}, pino({ level: 'silent' }));
  const channels = new Set<string>();
  const listener: Listener = {
    sync: () => real.sync(),
    listening: () => real.listening(),
    hear(channel, handler) {
      channels.add(channel);
      const stop = real.hear(channel, handler);
      return () => {
        channels.delete(channel);
        stop();
      };
    },
    close: () => real.close(),
  };
  return { listener, channels };
}

it("listens on the outbox's channel only while it leads: the other instance is not sent each event's NOTIFY", async () => {
  // The earlier tests' survivor gives up the lead.
  await Promise.all(running.splice(0).map((r) => r.stop()));
  const la = recordingListener();
  const lb = recordingListener();
  const a = relay(300, la.listener);
  await new Promise((r) => setTimeout(r, 300));
  relay(300, lb.listener);
  await new Promise((r) => setTimeout(r, 700));
  expect(la.channels.has(OUTBOX_CHANNEL)).toBe(true);
  expect(lb.channels.has(OUTBOX_CHANNEL)).toBe(false);

  // The lead passes on at a poll; with it, the channel.
  await a.relay.stop();
  await waitFor(() => lb.channels.has(OUTBOX_CHANNEL), { timeoutMs: 5000, what: 'the survivor to listen' });
  expect(la.channels.has(OUTBOX_CHANNEL)).toBe(false);
  await Promise.all([la.listener.close(), lb.listener.close()]);
});
