// The delivery worker of one instance: claims due deliveries in batches (a lease each), finds their targets in
// the cache, sends them with bounded concurrency, and records the outcomes in batches. Several instances run
// side by side; each delivery has one holder.
import type { Dispatcher } from 'undici';
import type { Orm } from '../db/orm.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import { recordAttempts } from './attempt.batch.js';
import { AttemptRecorder } from './attempt.recorder.js';
import { type Claimed, claimDue, releaseUnsent } from './delivery.store.js';
import { decide, type RetryPolicy } from './outcome.js';
import { Pump } from './pump.js';
import { sendAttempt } from './send.js';
import type { Target, TargetCache } from './target.cache.js';
import type { DeliveryOutcome, OutcomeCounter } from './webhook.metrics.js';

export interface WorkerOptions {
  orm: Orm;
  clock: Clock;
  log: Logger;
  dispatcher: Dispatcher;
  policy: RetryPolicy;
  /** Subscription targets (URL, secrets, status), kept current by NOTIFY. */
  targets: TargetCache;
  timeoutMs: number;
  allowPrivate: boolean;
  /** Requests in flight at once in this instance. */
  concurrency: number;
  /** How long a claim is held; longer than the deadline, so only a dead worker's claims run out. */
  leaseMs: number;
  /** Only failures for this long disable a subscription (Failing). */
  failingWindowMs: number;
  pollMs: number;
  userAgent: string;
  /** Counts what became of each delivery handled (metrics). */
  onOutcome?: OutcomeCounter | undefined;
}

export class DeliveryWorker {
  readonly #o: WorkerOptions;
  /** Every claimed delivery until its outcome is written. */
  readonly #inflight = new Set<Promise<void>>();
  /** Of those, the ones still sending: a slot each. The others wait for their batch to be written. */
  #sending = 0;
  readonly #pump: Pump;
  readonly #recorder: AttemptRecorder;

  constructor(opts: WorkerOptions) {
    this.#o = opts;
    this.#recorder = new AttemptRecorder((batch) => recordAttempts(opts.orm.em.fork(), batch));
    this.#pump = new Pump(
      () => this.#step(),
      opts.pollMs,
      (err) => opts.log.error({ err }, 'webhook delivery claim failed'),
    );
  }

  wake(): void {
    this.#pump.wake();
  }

  async #step(): Promise<boolean> {
    const { concurrency } = this.#o;
    const free = concurrency - this.#sending;
    // While busy, claim once a quarter of the slots is free (fewer, larger claims), and not while as many
    // outcomes as there are slots wait to be written.
    if (free <= 0 || (this.#sending > 0 && free < concurrency / 4)) return false;
    if (this.#inflight.size - this.#sending >= concurrency) return false;
    const em = this.#o.orm.em.fork();
    const claimed = await claimDue(em, {
      now: this.#o.clock.now(),
      leaseMs: this.#o.leaseMs,
      limit: free,
    });
    if (claimed.length === 0) return false;
    const targets = await this.#o.targets.get(
      em,
      claimed.map((c) => c.subscriptionId),
      this.#o.clock.now(),
    );
    for (const c of claimed) {
      let sending = true;
      const sent = () => {
        if (!sending) return;
        sending = false;
        this.#sending -= 1;
        this.#pump.wake();
      };
      this.#sending += 1;
      const p: Promise<void> = this.#deliver(c, targets.get(c.subscriptionId), sent)
        .catch((err) => this.#o.log.error({ err, deliveryId: c.id }, 'webhook delivery failed to record'))
        .finally(() => {
          sent();
          this.#inflight.delete(p);
          this.#pump.wake();
        });
      this.#inflight.add(p);
    }
    return claimed.length === free;
  }

  async #deliver(c: Claimed, target: Target | undefined, sent: () => void): Promise<void> {
    const { orm, clock } = this.#o;
    const em = orm.em.fork();
    const attemptedAt = clock.now();
    const count = (o: DeliveryOutcome) => this.#o.onOutcome?.(o);
    if (!target || target.deleted) {
      await releaseUnsent(em, c, 'Cancelled', attemptedAt);
      return count('cancelled');
    }
    if (!target.isActive && !c.manual) {
      await releaseUnsent(em, c, 'Skipped', attemptedAt);
      return count('skipped');
    }
    const result = await sendAttempt(
      this.#o.dispatcher,
      {
        url: target.url,
        deliveryId: c.id,
        subscriptionId: c.subscriptionId,
        event: c.event,
        body: c.body,
        secrets: target.secrets,
        timestamp: attemptedAt,
        userAgent: this.#o.userAgent,
      },
      { timeoutMs: this.#o.timeoutMs, allowPrivate: this.#o.allowPrivate },
    );
    sent();
    const now = clock.now();
    const outcome = decide(result, c, now, this.#o.policy);
    // One line per attempt, joinable with the line of the request that raised the event (eventRequestId).
    this.#o.log.info(
      {
        deliveryId: c.id,
        event: c.event,
        eventId: c.eventId,
        eventRequestId: c.eventRequestId,
        requestId: result.requestId,
        attempt: outcome.attemptCount,
        status: outcome.status,
        code: outcome.statusCode,
        error: outcome.error,
        durationMs: result.durationMs,
      },
      'webhook attempt',
    );
    const mine = await this.#recorder.record({
      claimed: c,
      result,
      outcome,
      trigger: c.manual ? 'Manual' : 'Scheduled',
      url: target.url,
      attemptedAt,
      now,
      failingWindowMs: this.#o.failingWindowMs,
    });
    count(
      !mine
        ? 'lease_lost'
        : outcome.success
          ? 'succeeded'
          : outcome.gone
            ? 'gone'
            : outcome.status === 'Pending'
              ? 'retrying'
              : 'failed',
    );
  }

  /** Stops claiming; waits for requests in flight (they end by their deadline) and their outcomes to be
   * written. Unfinished leases run out. */
  async stop(graceMs: number): Promise<void> {
    await this.#pump.stop();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.#inflight]),
      new Promise<void>((r) => {
        timer = setTimeout(r, graceMs);
      }),
    ]);
    clearTimeout(timer);
  }
}
