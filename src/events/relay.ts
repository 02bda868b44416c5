// The outbox relay: committed outbox events are taken from the outbox and published on the event bus, in every
// instance whether or not it delivers webhooks, so GraphQL subscriptions hear every event. Woken by the outbox's
// NOTIFY (sent at commit); a poll is the fallback. Instances share the work: a batch is taken with SKIP LOCKED,
// so each event is published once however many instances run.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import type { BusEvent, EventBus } from './bus.js';
import { listenForWork } from './listen.js';
import { OUTBOX_CHANNEL } from './outbox.announce.js';
import { Pump } from './pump.js';

/** NOTIFYed in the transaction that writes outbox events (outbox.announce.ts), delivered when it commits. */
export { OUTBOX_CHANNEL };

const BATCH = 200;

/**
 * Takes up to `limit` committed, unpublished events and marks them published in the same statement that hands
 * them to their durable consumers (the webhook fan-out), so no event is marked published without them. Returns
 * the events it published.
 */
export type TakeEvents = (em: EntityManager, opts: { now: Date; limit: number }) => Promise<BusEvent[]>;

export interface RelayOptions {
  orm: Orm;
  databaseUrl: string;
  clock: Clock;
  log: Logger;
  bus: EventBus | undefined;
  take: TakeEvents;
  /** Called after a batch was taken: an in-process consumer of what it wrote starts without waiting for a NOTIFY. */
  onTaken?: (() => void) | undefined;
  pollMs?: number | undefined;
}

export interface OutboxRelay {
  /** Looks for events now instead of at the next poll. */
  wake(): void;
  /** Stops after the batch in hand has been published. */
  stop(): Promise<void>;
}

export function startOutboxRelay(o: RelayOptions): OutboxRelay {
  const { orm, clock, log } = o;
  const pump = new Pump(
    async () => {
      const events = await o.take(orm.em.fork(), { now: clock.now(), limit: BATCH });
      if (events.length > 0) o.onTaken?.();
      // Live listeners hear an event once it has committed and been taken.
      for (const e of events)
        await o.bus?.publish(e).catch((err) => log.warn({ err }, 'could not publish an event to the bus'));
      return events.length === BATCH;
    },
    o.pollMs ?? 1000,
    // No settle time: events committing during a batch are taken together by the next one, and a lone event
    // goes out at once.
    (err) => log.error({ err }, 'outbox relay failed'),
  );
  const listener = listenForWork(o.databaseUrl, { [OUTBOX_CHANNEL]: () => pump.wake() }, log);
  return {
    wake: () => pump.wake(),
    async stop() {
      await listener.close();
      await pump.stop();
    },
  };
}
