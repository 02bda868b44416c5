// The delivery worker of one instance: claims due deliveries in batches (a lease each) ahead of the slots that
// send them, finds their targets in the cache, sends with bounded concurrency, and records the outcomes in
// batches. Several instances run side by side; each delivery has one holder.
//
// Car shares (CONTRACT §20, §24 rule 5). Which car shares have due deliveries is one read across car shares (ids
// and due times); each car share's deliveries are then claimed, recorded and released in its own scope, in a lane
// of their own: which lane takes a slot, and how much each claims ahead, is delivery.lanes.ts's.
import type { Dispatcher } from 'undici';
import type { Orm } from '../db/orm.js';
import { carShareEm } from '../db/scope.js';
import { Pump } from '../events/pump.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import { recordAttempts } from './attempt.batch.js';
import { AttemptRecorder } from './attempt.recorder.js';
import { type DeliverDeps, deliverClaimed } from './delivery.attempt.js';
import { CarShareLanes, type Lane } from './delivery.lanes.js';
import { type Claimed, carSharesWithDueDeliveries, claimDue, releaseClaims } from './delivery.store.js';
import type { RetryPolicy } from './outcome.js';
import type { Target, TargetCache } from './target.cache.js';
import type { OutcomeCounter } from './webhook.metrics.js';

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
  /** Requests in flight at once in this instance, shared by the car shares that have some in flight. */
  concurrency: number;
  /**
   * Slots beyond `concurrency` that only a car share with nothing in flight may take (default an eighth of
   * `concurrency`, at least one): its first delivery does not wait for another car share's slow receiver.
   */
  reserve?: number | undefined;
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
   * Told once outcomes of a car share's deliveries are written, and awaited before they count as recorded: a
   * delivery's new state is stale in that car share's cached answers at once (CONTRACT §28), not after their
   * time to live.
   */
  changed?: ((carShareId: string) => Promise<void>) | undefined;
  /** Whether a car share is suspended now (the instance's registry): its queued claims are handed back unsent. */
  isSuspended?: ((carShareId: string) => boolean) | undefined;
}

interface Queued {
  claimed: Claimed;
  target: Target | undefined;
  /** When the claim's lease runs out (the worker's clock). */
  leaseUntilMs: number;
}

export class DeliveryWorker {
  readonly #o: WorkerOptions;
  /** Every claimed delivery that was started, until its outcome is written: the ones still sending hold a slot
   * in their lane; the others wait for their batch to be written. */
  readonly #inflight = new Set<Promise<void>>();
  readonly #lanes: CarShareLanes<Queued>;
  /** Claims whose lease ran too short while queued: handed back by the next step. */
  #expired: Claimed[] = [];
  readonly #unrecordedLimit: number;
  readonly #pump: Pump;
  readonly #recorder: AttemptRecorder;
  /** What each delivery needs (delivery.attempt.ts): the options and the recorder. */
  readonly #deliverDeps: DeliverDeps;

  constructor(opts: WorkerOptions) {
    this.#o = opts;
    this.#lanes = new CarShareLanes(opts);
    this.#unrecordedLimit = opts.unrecordedLimit ?? 4 * opts.concurrency;
    const changed = opts.changed ?? (async () => undefined);
    this.#recorder = new AttemptRecorder(async (batch) => {
      // A batch may hold several car shares' outcomes: each is written in its own scope.
      const held = new Set<string>();
      for (const [carShareId, list] of byCarShare(batch, (a) => a.claimed.carShareId)) {
        for (const id of await recordAttempts(carShareEm(opts.orm, carShareId), list)) held.add(id);
        await changed(carShareId);
      }
      return held;
    });
    this.#deliverDeps = { ...opts, recorder: this.#recorder };
    this.#pump = new Pump(
      () => this.#step(),
      opts.pollMs,
      (err) => opts.log.error({ err }, 'webhook delivery claim failed'),
    );
  }

  /**
   * Work may have become due (a NOTIFY, a new event): claims now instead of at the next poll, for the car share
   * named (the NOTIFY of new deliveries names theirs), or after looking across car shares when none is.
   */
  wake(carShareId?: string): void {
    this.#lanes.wake(carShareId);
    this.#pump.wake();
  }

  /**
   * Looks across car shares when woken or once per poll; then claims, lane by lane, as many as each lane asks for
   * and leased as long as it says (delivery.lanes.ts), so the next batches are claimed while the current ones go
   * out.
   */
  async #step(): Promise<boolean> {
    this.#fill();
    await this.#releaseExpired();
    const { clock, orm, log } = this.#o;
    if (this.#lanes.looking()) {
      const due = await carSharesWithDueDeliveries(orm, clock.now());
      this.#lanes.found(new Set(due.map((d) => d.carShareId)));
    }
    let more = false;
    for (const lane of this.#lanes.toClaim()) {
      const size = this.#lanes.claimSize(lane);
      if (!size) continue;
      const { limit, leaseMs } = size;
      try {
        const em = carShareEm(orm, lane.id);
        const claimed = await claimDue(em, { now: clock.now(), leaseMs, limit });
        const leaseUntilMs = clock.now().getTime() + leaseMs;
        if (claimed.length < limit) lane.dry = true;
        if (claimed.length === 0) continue;
        const targets = await this.#o.targets.get(
          em,
          claimed.map((c) => c.subscriptionId),
          clock.now(),
        );
        for (const c of claimed)
          lane.queue.push({ claimed: c, target: targets.get(c.subscriptionId), leaseUntilMs });
        if (claimed.length === limit) more = true;
      } catch (err) {
        lane.dry = true;
        log.error({ err, carShareId: lane.id }, 'webhook delivery claim failed');
      }
      this.#fill();
    }
    return more;
  }

  /**
   * Starts queued deliveries while a slot is free and not too many outcomes wait to be written, the next one the
   * lanes give (delivery.lanes.ts); what they hand back instead is released by the next step.
   */
  #fill(): void {
    // Every attempt started and not yet written counts, the ones still sending too: a killed instance may have
    // sent each of them, so this is the bound on what it leaves sent but unrecorded.
    while (this.#inflight.size < this.#unrecordedLimit) {
      const next = this.#lanes.next((queued) => this.#expired.push(...queued.map((q) => q.claimed)));
      if (!next) return;
      this.#start(next.lane, next.queued);
    }
  }

  /** Sends a delivery its lane has just given a slot; the slot is freed once the request is over. */
  #start(lane: Lane<Queued>, { claimed: c, target }: Queued): void {
    let sending = true;
    const sent = () => {
      if (!sending) return;
      sending = false;
      this.#lanes.sent(lane);
      this.#fill();
      this.#pump.wake();
    };
    const p: Promise<void> = deliverClaimed(this.#deliverDeps, c, target, sent)
      .catch((err) =>
        this.#o.log.error(
          { err, deliveryId: c.id, carShareId: c.carShareId },
          'webhook delivery failed to record',
        ),
      )
      .finally(() => {
        sent();
        this.#inflight.delete(p);
        this.#fill();
        this.#pump.wake();
      });
    this.#inflight.add(p);
  }

  async #releaseExpired(): Promise<void> {
    const expired = this.#expired.splice(0);
    for (const [carShareId, list] of byCarShare(expired, (c) => c.carShareId))
      await releaseClaims(carShareEm(this.#o.orm, carShareId), list).catch((err) =>
        this.#o.log.warn({ err, carShareId }, 'webhook claims not handed back; their leases run out'),
      );
  }

  /** Stops claiming; waits for requests in flight (they end by their deadline) and their outcomes to be
   * written. Unfinished leases run out. */
  async stop(graceMs: number): Promise<void> {
    await this.#pump.stop();
    // Claimed but never started: handed back now rather than when their leases run out.
    this.#expired.push(...this.#lanes.drain().map((q) => q.claimed));
    await this.#releaseExpired();
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

/** Items grouped by car share, in order of first appearance. */
function byCarShare<T>(items: readonly T[], carShareOf: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of items) {
    const id = carShareOf(t);
    const list = out.get(id);
    if (list) list.push(t);
    else out.set(id, [t]);
  }
  return out;
}
