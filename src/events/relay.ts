// The outbox relay: committed outbox events are taken from the outbox and published on the event bus, in every
// instance whether or not it delivers webhooks, so GraphQL subscriptions hear every event. Woken by the outbox's
// NOTIFY (sent at commit); a poll is the fallback. Instances share the work: a batch is taken with SKIP LOCKED,
// so each event is published once however many instances run.
//
// Car shares (CONTRACT §20, §24 rule 5): which car shares have unpublished events is one read across car shares
// (their ids only, as the DATABASE_URL user); each car share's events are then taken in its own scope, a batch
// per car share per round, so one car share's backlog delays another's events by one batch at most.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import { carShareEm, deploymentSql } from '../db/scope.js';
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
 * Takes up to `limit` committed, unpublished events of the car share `em` is scoped to, and marks them published
 * in the same statement that hands them to their durable consumers (the webhook fan-out), so no event is marked
 * published without them. Returns the events it published.
 */
export type TakeEvents = (em: EntityManager, opts: { now: Date; limit: number }) => Promise<BusEvent[]>;

export interface RelayOptions {
  orm: Orm;
  databaseUrl: string;
  clock: Clock;
  log: Logger;
  bus: EventBus | undefined;
  take: TakeEvents;
  /**
   * Called after a batch of a car share was taken: an in-process consumer of what it wrote starts without waiting
   * for a NOTIFY.
   */
  onTaken?: ((carShareId: string) => void) | undefined;
  pollMs?: number | undefined;
}

export interface OutboxRelay {
  /** Looks for events now instead of at the next poll. */
  wake(): void;
  /** Stops after the batch in hand has been published. */
  stop(): Promise<void>;
}

/**
 * The car shares with committed, unpublished events: a read across car shares of their ids only (§24 rule 5),
 * oldest backlog first.
 */
export async function carSharesWithEvents(orm: Orm): Promise<string[]> {
  const rows = await deploymentSql<{ car_share_id: string }>(
    orm,
    `select "car_share_id" from "outbox_event" where "published_date_utc" is null
        group by "car_share_id" order by min("seq")`,
  );
  return rows.map((r) => r.car_share_id);
}

export function startOutboxRelay(o: RelayOptions): OutboxRelay {
  const { orm, clock, log } = o;
  /** One batch of one car share, published on the bus; true when it was full (more may wait). */
  const relayOne = async (carShareId: string): Promise<boolean> => {
    const events = await o.take(carShareEm(orm, carShareId), { now: clock.now(), limit: BATCH });
    if (events.length > 0) o.onTaken?.(carShareId);
    // Live listeners hear an event once it has committed and been taken.
    for (const e of events)
      await o.bus?.publish(e).catch((err) => log.warn({ err }, 'could not publish an event to the bus'));
    return events.length === BATCH;
  };
  const pump = new Pump(
    async () => {
      // A round: one batch of every car share with events. A car share's failure is its own: the others go on.
      let more = false;
      for (const carShareId of await carSharesWithEvents(orm)) {
        try {
          if (await relayOne(carShareId)) more = true;
        } catch (err) {
          log.error({ err, carShareId }, 'outbox relay failed');
        }
      }
      return more;
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
