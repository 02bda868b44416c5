// The outbox relay wakes this instance's delivery worker (and makes cached delivery searches stale) only when a
// batch wrote deliveries: an event no subscription matches is published with nothing for the worker to look at,
// where a look for due deliveries cost a transaction per batch (bench S5). The fan-out's own NOTIFY wakes the
// workers of every instance when it did write.
import { pino } from 'pino';
import { afterAll, expect, inject, it } from 'vitest';
import { recordEvent } from '../../src/events/outbox.js';
import { type OutboxRelay, startOutboxRelay } from '../../src/events/relay.js';
import { systemClock } from '../../src/shared/clock.js';
import { fanOutBatch } from '../../src/webhooks/fanout.js';
import { asOps } from '../support/actors.js';
import { scoped } from '../support/scope.js';
import { waitFor } from '../support/wait.js';
import { CREATE, rows, useWebhookHarness } from './support.js';

const h = useWebhookHarness({ resetEach: false });
let relay: OutboxRelay | undefined;
afterAll(() => relay?.stop());

it('wakes the delivery worker after a batch that wrote deliveries, not after one that wrote none', async () => {
  const taken: string[] = [];
  relay = startOutboxRelay({
    orm: h.orm,
    databaseUrl: inject('databaseUrl'),
    clock: systemClock,
    log: pino({ level: 'silent' }),
    bus: undefined,
    take: fanOutBatch,
    onTaken: (carShareId) => taken.push(carShareId),
    pollMs: 200,
  });
  const record = (id: string) =>
    scoped(h.orm).transactional(async (em) => {
      recordEvent({ em, clock: systemClock }, 'profile_update', { id, userId: id, changedFields: ['Bio'] }, [
        id,
      ]);
    });
  const subscribe = (event: string) =>
    h.ok(asOps() as never, CREATE, {
      input: { name: event, events: [event], config: { url: 'https://example.com/hook' } },
    });
  const unpublished = async () =>
    Number((await rows(h, `select count(*) as n from outbox_event where published_date_utc is null`))[0]!.n);

  // Nothing subscribes to profile_update: the event is published and the worker is not woken.
  await subscribe('useraccount_create');
  await record('00000000-0000-4000-8000-000000000001');
  await waitFor(async () => (await unpublished()) === 0, { what: 'the event published' });
  await new Promise((r) => setTimeout(r, 300));
  expect(taken).toEqual([]);

  // Subscribed now: its delivery is written, and the worker here is woken for its car share.
  await subscribe('profile_update');
  await record('00000000-0000-4000-8000-000000000002');
  await waitFor(() => taken.length > 0, { what: 'the worker woken' });
  expect(new Set(taken)).toEqual(new Set([h.carShare.id]));
  expect(
    Number(
      (await rows(h, `select count(*) as n from webhook_delivery where event = 'profile_update'`))[0]!.n,
    ),
  ).toBeGreaterThan(0);
});
