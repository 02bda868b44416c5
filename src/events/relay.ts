// The outbox relay: committed outbox events are taken from the outbox and published on the event bus, in every
// instance whether or not it delivers webhooks, so GraphQL subscriptions hear every event. Woken by the outbox's
// NOTIFY (sent at commit); a poll is the fallback. One instance answers NOTIFYs, the one holding the relay's lead
// (RELAY_LEAD_KEY below); every instance looks at each poll. Instances share the work: a batch is taken with SKIP
// LOCKED, so each event is published once however many instances run.
//
// Car shares (CONTRACT §20, §24 rule 5): the NOTIFY that wakes the relay names the car share whose events
// committed, and that car share's events are taken in its own scope; which car shares have unpublished events is
// one read across car shares (their ids only, as the DATABASE_URL user), made at each poll and after a wake that
// names none. A batch per car share per round, so one car share's backlog delays another's events by one batch at
// most. (Asking which car shares had events at every wake cost each instance a statement per event: test/bench S7.)
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import { carShareEm, deploymentSql } from '../db/scope.js';
import { sessionLead } from '../db/session-lead.js';
import type { Clock } from '../shared/clock.js';
import { isUuid } from '../shared/ids.js';
import type { Logger } from '../shared/log.js';
import type { BusEvent, EventBus } from './bus.js';
import { type Listener, listenForWork } from './listen.js';
import { OUTBOX_CHANNEL } from './outbox.announce.js';
import { Pump } from './pump.js';

/** NOTIFYed in the transaction that writes outbox events (outbox.announce.ts), delivered when it commits. */
export { OUTBOX_CHANNEL };

const BATCH = 200;

/**
 * Rounds start at least this far apart: under a stream of bookings the lead took one to three events per round,
 * each round a transaction of its own (about 300 µs of PostgreSQL per booking, test/bench S5); events committing
 * in between now go out together, at most this much later. A lone event still goes out at once.
 */
export const RELAY_GAP_MS = 10;

/**
 * The relay's lead (src/db/session-lead.ts): the instance holding it listens for the outbox's NOTIFYs and answers
 * them. When every instance heard every NOTIFY and looked at once, an event cost PostgreSQL one look per instance
 * (a round trip carrying its car share's scope and the read) where one takes it: with five instances on one
 * database, more CPU per booking than the booking's own statements (test/bench S5, docs/performance.md). The others
 * look at their polls, and try to take the lead there: a stopped instance's lead passes on within a poll.
 */
export const RELAY_LEAD_KEY = 727274667;

/**
 * Takes up to `limit` committed, unpublished events of the car share `em` is scoped to, and marks them published
 * in the same statement that hands them to their durable consumers (the webhook fan-out), so no event is marked
 * published without them. Returns the events it published, and whether it wrote anything for its consumers
 * (`wrote`: deliveries).
 */
export type TakeEvents = (
  em: EntityManager,
  opts: { now: Date; limit: number },
) => Promise<{ events: BusEvent[]; wrote: boolean }>;

export interface RelayOptions {
  orm: Orm;
  databaseUrl: string;
  clock: Clock;
  log: Logger;
  bus: EventBus | undefined;
  take: TakeEvents;
  /** The instance's listening connection (src/service.ts); without one, the relay opens its own. */
  listener?: Listener | undefined;
  /**
   * Called after a batch of a car share was taken and wrote rows for a consumer: an in-process consumer of what it
   * wrote starts without waiting for a NOTIFY. A batch that wrote none (no subscription matched) calls nothing: a
   * look for due deliveries there found none, and cost a transaction per batch (bench S5).
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
    const { events, wrote } = await o.take(carShareEm(orm, carShareId), { now: clock.now(), limit: BATCH });
    if (wrote) o.onTaken?.(carShareId);
    // Live listeners hear an event once it has committed and been taken.
    for (const e of events)
      await o.bus?.publish(e).catch((err) => log.warn({ err }, 'could not publish an event to the bus'));
    return events.length === BATCH;
  };
  const pollMs = o.pollMs ?? 1000;
  /** Car shares named by a NOTIFY, or whose last batch was full: taken in the next round. */
  const named = new Set<string>();
  /** A wake named no car share (a reconnect, an older writer): look across car shares in the next round. */
  let lookAround = true;
  let lookedAt = Number.NEGATIVE_INFINITY;
  const lead = sessionLead(o.databaseUrl, RELAY_LEAD_KEY, 'outbox relay', log);
  const own = o.listener ? undefined : listenForWork(o.databaseUrl, {}, log);
  const listener = o.listener ?? own!;
  let stopHearing: (() => void) | undefined;
  const pump = new Pump(
    async () => {
      // An instance without the lead runs rounds at its polls only: each is its chance to take the lead.
      if (!lead.held) await lead.claim();
      follow();
      // A round: one batch of every car share with events. A car share's failure is its own: the others go on.
      const round = new Set(named);
      named.clear();
      if (lookAround || performance.now() - lookedAt >= pollMs) {
        lookAround = false;
        lookedAt = performance.now();
        for (const id of await carSharesWithEvents(orm)) round.add(id);
      }
      for (const carShareId of round) {
        try {
          if (await relayOne(carShareId)) named.add(carShareId);
        } catch (err) {
          log.error({ err, carShareId }, 'outbox relay failed');
        }
      }
      return named.size > 0;
    },
    pollMs,
    (err) => log.error({ err }, 'outbox relay failed'),
    RELAY_GAP_MS,
  );
  const wake = (carShareId?: string) => {
    if (isUuid(carShareId)) named.add(carShareId);
    else lookAround = true;
    pump.wake();
  };
  // Heard while leading only (`follow`): a NOTIFY names its car share; a (re)connection carries no payload.
  const heard = (payload?: string) => {
    if (payload === undefined || lead.held) wake(payload);
  };
  /**
   * The outbox's channel is listened on while leading only. PostgreSQL still wakes every listening connection at
   * each NOTIFY, but forwards a notification only to those listening on its channel: an instance that does not
   * lead no longer receives (and ignores) a message per event written anywhere (bench S5).
   */
  function follow(): void {
    if (lead.held && !stopHearing) stopHearing = listener.hear(OUTBOX_CHANNEL, heard);
    else if (!lead.held && stopHearing) {
      stopHearing();
      stopHearing = undefined;
    }
  }
  return {
    wake: () => wake(),
    async stop() {
      stopHearing?.();
      await own?.close();
      await pump.stop();
      await lead.close();
    },
  };
}
