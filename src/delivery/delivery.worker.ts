// The delivery worker of one instance: claims due deliveries in batches (a lease each) ahead of the slots that
// send them, finds their targets in the cache, sends with bounded concurrency, and records the outcomes in
// batches. Several instances run side by side; each delivery has one holder.
import type { Dispatcher } from 'undici';
import type { Orm } from '../db/orm.js';
import { Pump } from '../events/pump.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import { recordAttempts } from './attempt.batch.js';
import { AttemptRecorder } from './attempt.recorder.js';
import { type Claimed, claimDue, releaseClaims, releaseUnsent } from './delivery.store.js';
import { decide, type RetryPolicy } from './outcome.js';
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
  /** Attempts sent whose outcomes may wait to be written at once (default four rounds of slots): what a
   * killed instance can leave sent but unrecorded. */
  unrecordedLimit?: number | undefined;
  /** How long a claim is held; longer than the deadline, so only a dead worker's claims run out. */
  leaseMs: number;
  /** Only failures for this long disable a subscription (Failing). */
  failingWindowMs: number;
  pollMs: number;
  userAgent: string;
  /** Counts what became of each delivery handled (metrics). */
  onOutcome?: OutcomeCounter | undefined;
  /**
   * Told once outcomes are written, and awaited before they count as recorded: a delivery's new state is stale in
   * cached answers at once (CONTRACT §28), not after their time to live.
   */
  changed?: (() => Promise<void>) | undefined;
}

/** Rounds of slots claimed ahead: claims (a round-trip each) overlap the sending instead of pausing it. */
const PREFETCH_ROUNDS = 4;

export class DeliveryWorker {
  readonly #o: WorkerOptions;
  /** Every claimed delivery that was started, until its outcome is written. */
  readonly #inflight = new Set<Promise<void>>();
  /** Of those, the ones still sending: a slot each. The others wait for their batch to be written. */
  #sending = 0;
  /** Claimed and not yet started: the next claim runs while these and the ones sending go out. */
  #queue: { claimed: Claimed; target: Target | undefined }[] = [];
  readonly #unrecordedLimit: number;
  readonly #pump: Pump;
  readonly #recorder: AttemptRecorder;

  constructor(opts: WorkerOptions) {
    this.#o = opts;
    this.#unrecordedLimit = opts.unrecordedLimit ?? 4 * opts.concurrency;
    const changed = opts.changed ?? (async () => undefined);
    this.#recorder = new AttemptRecorder(async (batch) => {
      const mine = await recordAttempts(opts.orm.em.fork(), batch);
      await changed();
      return mine;
    });
    this.#pump = new Pump(
      () => this.#step(),
      opts.pollMs,
      (err) => opts.log.error({ err }, 'webhook delivery claim failed'),
    );
  }

  wake(): void {
    this.#pump.wake();
  }

  /**
   * Claims while fewer than PREFETCH_ROUNDS rounds of slots are sent or queued, so the next batches are claimed
   * while the current one goes out. A queued delivery may wait a round of deadlines per round ahead of it: its
   * lease is longer by as many deadlines, so only a dead worker's claims run out.
   */
  async #step(): Promise<boolean> {
    this.#fill();
    const { concurrency, timeoutMs } = this.#o;
    const ahead = this.#sending + this.#queue.length;
    const want = PREFETCH_ROUNDS * concurrency - ahead;
    // While busy, claim once a round is wanted (fewer, larger claims).
    if (want <= 0 || (ahead > 0 && want < concurrency)) return false;
    const em = this.#o.orm.em.fork();
    const claimed = await claimDue(em, {
      now: this.#o.clock.now(),
      leaseMs: this.#o.leaseMs + Math.floor((ahead + want - 1) / concurrency) * timeoutMs,
      limit: want,
    });
    if (claimed.length === 0) return false;
    const targets = await this.#o.targets.get(
      em,
      claimed.map((c) => c.subscriptionId),
      this.#o.clock.now(),
    );
    for (const c of claimed) this.#queue.push({ claimed: c, target: targets.get(c.subscriptionId) });
    this.#fill();
    return claimed.length === want;
  }

  /** Starts queued deliveries while a slot is free and not too many outcomes wait to be written. */
  #fill(): void {
    while (
      this.#queue.length > 0 &&
      this.#sending < this.#o.concurrency &&
      this.#inflight.size - this.#sending < this.#unrecordedLimit
    ) {
      const { claimed: c, target } = this.#queue.shift()!;
      let sending = true;
      const sent = () => {
        if (!sending) return;
        sending = false;
        this.#sending -= 1;
        this.#fill();
        this.#pump.wake();
      };
      this.#sending += 1;
      const p: Promise<void> = this.#deliver(c, target, sent)
        .catch((err) => this.#o.log.error({ err, deliveryId: c.id }, 'webhook delivery failed to record'))
        .finally(() => {
          sent();
          this.#inflight.delete(p);
          this.#fill();
          this.#pump.wake();
        });
      this.#inflight.add(p);
    }
  }

  async #deliver(c: Claimed, claimedTarget: Target | undefined, sent: () => void): Promise<void> {
    const { orm, clock, targets } = this.#o;
    // A context of its own only when this delivery reads or writes alone (rare): most need none.
    const em = () => orm.em.fork();
    const attemptedAt = clock.now();
    // The subscription may have changed while the delivery was queued; the cache has heard of it by now.
    const target = claimedTarget
      ? (targets.cached(c.subscriptionId, attemptedAt) ??
        (await targets.get(em(), [c.subscriptionId], attemptedAt)).get(c.subscriptionId))
      : undefined;
    const count = (o: DeliveryOutcome) => this.#o.onOutcome?.(o);
    if (!target || target.deleted) {
      await releaseUnsent(em(), c, 'Cancelled', attemptedAt);
      await this.#o.changed?.();
      return count('cancelled');
    }
    if (!target.isActive && !c.manual) {
      await releaseUnsent(em(), c, 'Skipped', attemptedAt);
      await this.#o.changed?.();
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
    // Claimed but never started: handed back now rather than when their leases run out.
    const unsent = this.#queue.splice(0).map((q) => q.claimed);
    await releaseClaims(this.#o.orm.em.fork(), unsent).catch((err) =>
      this.#o.log.warn({ err }, 'webhook claims not handed back; their leases run out'),
    );
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
