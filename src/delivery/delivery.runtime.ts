// Starts and stops an instance's webhook delivery: the worker, the LISTEN connection that wakes it and keeps the
// target cache current, and the 30-day retention sweep. (Events become deliveries in the outbox relay, which runs
// whether or not this does: src/events/relay.ts.) Every step on a car share's rows runs in its scope.
import { readFileSync } from 'node:fs';
import { Agent } from 'undici';
import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import { carShareEm } from '../db/scope.js';
import { type Listener, listenForWork } from '../events/listen.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import { DELIVERY_CHANNEL } from '../webhooks/fanout.js';
import { decryptSecret, loadDataKey } from '../webhooks/secret.js';
import { guardedConnector, type Lookup } from '../webhooks/target-guard.js';
import { scopeOf } from '../webhooks/webhook.scope.js';
import { carSharesWithFinishedBefore, deleteFinishedBefore } from './delivery.store.js';
import { DeliveryWorker } from './delivery.worker.js';
import { SUBSCRIPTION_CHANNEL, TargetCache } from './target.cache.js';
import { webhookMetrics } from './webhook.metrics.js';

const DAY_MS = 24 * 3600 * 1000;
const STOP_GRACE_MS = 15_000;
/**
 * Attempts sending at once in an instance. Outcomes wait for their batch to be written, up to UNRECORDED_LIMIT:
 * a batch being written (a round-trip of some milliseconds) does not stop the sending, and a killed instance
 * leaves at most that many attempts unrecorded (sent again when their leases run out).
 */
export const CONCURRENCY = 32;
export const UNRECORDED_LIMIT = 4 * CONCURRENCY;
/** Slots beyond CONCURRENCY for a car share with nothing in flight (src/delivery/delivery.lanes.ts). */
const reserveOf = (concurrency: number): number => Math.max(1, Math.floor(concurrency / 8));
/** Data keys kept (one per car share delivering): 32 bytes each. */
const MAX_DATA_KEYS = 10_000;

export interface DeliveryOptions {
  orm: Orm;
  databaseUrl: string;
  clock: Clock;
  log: Logger;
  /** The instance's registry: deliveries by outcome and the queue's depth are published on it. */
  metrics?: Pick<Metrics, 'counter' | 'gauge'> | undefined;
  retryScheduleMs: readonly number[];
  timeoutMs: number;
  allowPrivateTargets: boolean;
  concurrency?: number;
  /** Connections at once to one receiver's origin; default as many as attempts (the reserve included), so none
   * waits for a connection past its deadline, and a car share's first delivery is not queued behind another's. */
  connectionsPerHost?: number;
  pollMs?: number;
  leaseMs?: number;
  failingWindowMs?: number;
  retentionMs?: number;
  /** Trusted CA for receivers with a self-signed certificate (tests). */
  ca?: string;
  /** DNS lookup used by the guard (tests inject one that answers loopback). */
  lookup?: Lookup;
  random?: () => number;
  /**
   * Told once outcomes of a car share's deliveries are written: its cached answers showing deliveries and
   * subscriptions go stale (src/app.ts).
   */
  changed?: ((carShareId: string) => Promise<void>) | undefined;
  /** Whether a car share is suspended now (CONTRACT §23): its claimed deliveries are not sent. */
  isSuspended?: ((carShareId: string) => boolean) | undefined;
  /** The instance's listening connection (src/service.ts); without one, the runtime opens its own. */
  listener?: Listener | undefined;
}

export interface DeliveryRuntime {
  /** Looks for due deliveries now instead of at the next poll: the car share's, or any car share's. */
  wake(carShareId?: string): void;
  stop(): Promise<void>;
}

/** The runtime's settings from configuration (CONTRACT §12). */
export function deliverySettings(config: Config) {
  return {
    retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE.map((s) => s * 1000),
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
  };
}

/** `User-Agent` of every delivery (and of `npm run webhooks -- listen`, which sends what a delivery sends). */
export function userAgent(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return `Carshare-Webhooks/${pkg.version}`;
}

export async function startDelivery(o: DeliveryOptions): Promise<DeliveryRuntime> {
  const { orm, clock, log } = o;
  const pollMs = o.pollMs ?? 1000;
  const concurrency = o.concurrency ?? CONCURRENCY;
  const reserve = reserveOf(concurrency);
  // Each car share's secrets are encrypted with its own data key, read (or made) on its first delivery here.
  const keys = new Map<string, Promise<Buffer>>();
  const dataKey = (em: Parameters<typeof loadDataKey>[0]): Promise<Buffer> => {
    const id = scopeOf(em);
    let key = keys.get(id);
    if (!key) {
      if (keys.size >= MAX_DATA_KEYS) keys.clear();
      key = loadDataKey(em);
      key.catch(() => keys.delete(id));
      keys.set(id, key);
    }
    return key;
  };
  const dispatcher = new Agent({
    // A bounded pool per target origin: a slow receiver holds at most these connections; its other deliveries
    // wait their turn (within their deadline) instead of opening more.
    connections: o.connectionsPerHost ?? concurrency + reserve,
    connect: guardedConnector({
      allowPrivate: o.allowPrivateTargets,
      lookup: o.lookup,
      ca: o.ca,
      connectTimeoutMs: Math.min(o.timeoutMs, 10_000),
    }),
  });
  // The instance's listening connection, or one of the runtime's own; the cache asks it for its barrier.
  const own = o.listener ? undefined : listenForWork(o.databaseUrl, {}, log);
  const listener = (o.listener ?? own)!;
  const targets = new TargetCache(
    async (em) => {
      const key = await dataKey(em);
      return (blob, id) => decryptSecret(key, blob, id);
    },
    () => listener.sync(),
  );
  const worker = new DeliveryWorker({
    orm,
    clock,
    log,
    dispatcher,
    policy: { retryScheduleMs: o.retryScheduleMs, random: o.random ?? Math.random },
    targets,
    timeoutMs: o.timeoutMs,
    allowPrivate: o.allowPrivateTargets,
    concurrency,
    reserve,
    leaseMs: o.leaseMs ?? 2 * o.timeoutMs + 5000,
    failingWindowMs: o.failingWindowMs ?? 5 * DAY_MS,
    pollMs,
    userAgent: userAgent(),
    onOutcome: o.metrics ? webhookMetrics(o.metrics, orm, clock) : undefined,
    changed: o.changed,
    isSuspended: o.isSuspended,
  });
  const retentionMs = o.retentionMs ?? 30 * DAY_MS;
  const sweep = setInterval(() => {
    purgeFinished(orm, new Date(clock.now().getTime() - retentionMs)).catch((err) =>
      log.warn({ err }, 'webhook retention sweep failed'),
    );
  }, 3600_000);
  sweep.unref();
  // Heard once the worker they wake exists.
  const stopHearing = [
    // The payload names the car share whose deliveries committed (src/webhooks/fanout.ts).
    listener.hear(DELIVERY_CHANNEL, (carShareId) => worker.wake(carShareId)),
    listener.hear(SUBSCRIPTION_CHANNEL, (id) => targets.forget(id || undefined)),
  ];

  return {
    wake(carShareId) {
      worker.wake(carShareId);
    },
    async stop() {
      clearInterval(sweep);
      for (const stop of stopHearing) stop();
      await own?.close();
      // Attempts get their deadline, but no more than fits in the process's 20 s shutdown (src/main.ts).
      await worker.stop(Math.min(o.timeoutMs + 1000, STOP_GRACE_MS));
      // Anything still in flight past its deadline is cut; its lease runs out and another instance retries.
      await dispatcher.destroy();
    },
  };
}

/**
 * Retention: each car share's finished deliveries older than `before`, deleted in its scope a batch at a time, the
 * car shares taken in turn (one batch each per round) so none waits on another's backlog.
 */
export async function purgeFinished(orm: Orm, before: Date, batch = 1000): Promise<number> {
  let total = 0;
  let round = await carSharesWithFinishedBefore(orm, before);
  while (round.length > 0) {
    const next: string[] = [];
    for (const id of round) {
      const n = await deleteFinishedBefore(carShareEm(orm, id), before, batch);
      total += n;
      if (n === batch) next.push(id);
    }
    round = next;
  }
  return total;
}
