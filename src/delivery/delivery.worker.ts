// The delivery worker of one instance: claims due deliveries in batches (a lease each) ahead of the slots that
// send them, finds their targets in the cache, sends with bounded concurrency, and records the outcomes in
// batches. Several instances run side by side; each delivery has one holder.
//
// Car shares (CONTRACT §20, §24 rule 5). Which car shares have due deliveries is one read across car shares (ids
// and due times); each car share's deliveries are then claimed, recorded and released in its own scope, in a lane
// of their own. Slots go round the lanes (least recently served first) and a lane may hold only its share of them,
// so a car share with a long backlog to a slow receiver cannot fill every slot; and a few slots beyond
// `concurrency` are kept for a car share with nothing in flight, so its first delivery starts at once even while
// every other slot waits on a slow receiver.
import type { Dispatcher } from 'undici';
import type { Orm } from '../db/orm.js';
import { carShareEm } from '../db/scope.js';
import { Pump } from '../events/pump.js';
import type { Clock } from '../shared/clock.js';
import { isUuid } from '../shared/ids.js';
import type { Logger } from '../shared/log.js';
import { recordAttempts } from './attempt.batch.js';
import { AttemptRecorder } from './attempt.recorder.js';
import { type DeliverDeps, deliverClaimed } from './delivery.attempt.js';
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

/** Rounds of slots claimed ahead: claims (a round-trip each) overlap the sending instead of pausing it. */
const PREFETCH_ROUNDS = 4;
/** A queued delivery is sent only while its lease outlasts its deadline by this much; otherwise handed back. */
const LEASE_MARGIN_MS = 1000;

interface Queued {
  claimed: Claimed;
  target: Target | undefined;
  /** When the claim's lease runs out (the worker's clock). */
  leaseUntilMs: number;
}

/** One car share's deliveries in this worker. */
interface Lane {
  id: string;
  /** Claimed and not yet started. */
  queue: Queued[];
  /** Started and still sending: a slot each. */
  sending: number;
  /** Its last claim found fewer due than asked, and no look across car shares has found more since. */
  dry: boolean;
}

export class DeliveryWorker {
  readonly #o: WorkerOptions;
  readonly #reserve: number;
  /** Every claimed delivery that was started, until its outcome is written. */
  readonly #inflight = new Set<Promise<void>>();
  /** Of those, the ones still sending: a slot each. The others wait for their batch to be written. */
  #sending = 0;
  /** By car share, least recently served first (a lane moves to the end when one of its deliveries starts). */
  readonly #lanes = new Map<string, Lane>();
  /** Claims whose lease ran too short while queued: handed back by the next step. */
  #expired: Claimed[] = [];
  readonly #unrecordedLimit: number;
  readonly #pump: Pump;
  readonly #recorder: AttemptRecorder;
  /** What each delivery needs (delivery.attempt.ts): the options and the recorder. */
  readonly #deliverDeps: DeliverDeps;
  /** Something may have become due that no lane knows of (a NOTIFY, a wake): look across car shares. */
  #lookAround = true;
  #lookedAt = Number.NEGATIVE_INFINITY;

  constructor(opts: WorkerOptions) {
    this.#o = opts;
    this.#reserve = opts.reserve ?? Math.max(1, Math.floor(opts.concurrency / 8));
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
    if (isUuid(carShareId)) this.#lane(carShareId).dry = false;
    else this.#lookAround = true;
    this.#pump.wake();
  }

  /** The lanes with deliveries queued, in flight, or known to be due. */
  #active(): number {
    let n = 0;
    for (const l of this.#lanes.values()) if (l.queue.length > 0 || l.sending > 0 || !l.dry) n += 1;
    return n;
  }

  /** The slots one car share may hold while `n` car shares have work. */
  #cap(n: number): number {
    return Math.max(1, Math.floor(this.#o.concurrency / Math.max(1, n)));
  }

  #lane(id: string): Lane {
    let lane = this.#lanes.get(id);
    if (!lane) {
      lane = { id, queue: [], sending: 0, dry: true };
      // A new lane has been served least recently of all.
      const rest = [...this.#lanes];
      this.#lanes.clear();
      this.#lanes.set(id, lane);
      for (const [k, v] of rest) this.#lanes.set(k, v);
    }
    return lane;
  }

  /**
   * Looks across car shares when woken or once per poll; then claims, lane by lane (those with nothing in flight
   * first), while a lane has fewer than PREFETCH_ROUNDS rounds of its slots sent or queued, so the next batches
   * are claimed while the current ones go out. A queued delivery may wait a round of deadlines per round ahead of
   * it: its lease is longer by as many deadlines (and one whose lease ran short anyway is handed back unsent).
   */
  async #step(): Promise<boolean> {
    this.#fill();
    await this.#releaseExpired();
    const { concurrency, timeoutMs, clock, orm, log } = this.#o;
    if (this.#lookAround || performance.now() - this.#lookedAt >= this.#o.pollMs) {
      this.#lookAround = false;
      this.#lookedAt = performance.now();
      const due = new Set((await carSharesWithDueDeliveries(orm, clock.now())).map((d) => d.carShareId));
      for (const id of due) this.#lane(id).dry = false;
      for (const lane of this.#lanes.values()) {
        if (!due.has(lane.id)) lane.dry = true;
        if (lane.dry && lane.queue.length === 0 && lane.sending === 0) this.#lanes.delete(lane.id);
      }
    }
    const lanes = [...this.#lanes.values()].filter((l) => !l.dry);
    // A car share with nothing in flight first: its first delivery may take a reserved slot.
    lanes.sort((a, b) => Number(a.sending + a.queue.length > 0) - Number(b.sending + b.queue.length > 0));
    let more = false;
    for (const lane of lanes) {
      const n = this.#active();
      const cap = this.#cap(n);
      const ahead = lane.sending + lane.queue.length;
      const want = PREFETCH_ROUNDS * cap - ahead;
      // While busy, claim once a round is wanted (fewer, larger claims).
      if (want <= 0 || (ahead > 0 && want < cap)) continue;
      // Rounds this lane's last claim waits, were one more car share to take its share of the slots meanwhile.
      const rate = concurrency / (n + 1);
      const leaseMs = this.#o.leaseMs + Math.floor((ahead + want - 1) / Math.max(1, rate)) * timeoutMs;
      try {
        const em = carShareEm(orm, lane.id);
        const claimed = await claimDue(em, { now: clock.now(), leaseMs, limit: want });
        const leaseUntilMs = clock.now().getTime() + leaseMs;
        if (claimed.length < want) lane.dry = true;
        if (claimed.length === 0) continue;
        const targets = await this.#o.targets.get(
          em,
          claimed.map((c) => c.subscriptionId),
          clock.now(),
        );
        for (const c of claimed)
          lane.queue.push({ claimed: c, target: targets.get(c.subscriptionId), leaseUntilMs });
        if (claimed.length === want) more = true;
      } catch (err) {
        lane.dry = true;
        log.error({ err, carShareId: lane.id }, 'webhook delivery claim failed');
      }
      this.#fill();
    }
    return more;
  }

  /**
   * Starts queued deliveries while a slot is free and not too many outcomes wait to be written: round the lanes,
   * least recently served first, each within its share of the slots.
   */
  #fill(): void {
    const { concurrency, clock, timeoutMs } = this.#o;
    // Every attempt started and not yet written counts, the ones still sending too: a killed instance may have
    // sent each of them, so this is the bound on what it leaves sent but unrecorded.
    while (this.#inflight.size < this.#unrecordedLimit) {
      const cap = this.#cap(this.#active());
      let lane: Lane | undefined;
      for (const l of this.#lanes.values()) {
        if (l.queue.length === 0) continue;
        // Suspended since its claim (CONTRACT §23): nothing more is sent; the claims go back for after reactivation.
        if (this.#o.isSuspended?.(l.id)) {
          this.#expired.push(...l.queue.splice(0).map((q) => q.claimed));
          l.dry = true;
          continue;
        }
        const may =
          l.sending === 0
            ? this.#sending < concurrency + this.#reserve
            : this.#sending < concurrency && l.sending < cap;
        if (may) {
          lane = l;
          break;
        }
      }
      if (!lane) return;
      const { claimed: c, target, leaseUntilMs } = lane.queue.shift()!;
      // Queued longer than its lease allows: another worker may hold it by the time it is sent.
      if (leaseUntilMs - clock.now().getTime() < timeoutMs + LEASE_MARGIN_MS) {
        this.#expired.push(c);
        continue;
      }
      this.#lanes.delete(lane.id);
      this.#lanes.set(lane.id, lane);
      this.#start(lane, c, target);
    }
  }

  #start(lane: Lane, c: Claimed, target: Target | undefined): void {
    let sending = true;
    const sent = () => {
      if (!sending) return;
      sending = false;
      this.#sending -= 1;
      lane.sending -= 1;
      this.#fill();
      this.#pump.wake();
    };
    this.#sending += 1;
    lane.sending += 1;
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
    for (const lane of this.#lanes.values())
      this.#expired.push(...lane.queue.splice(0).map((q) => q.claimed));
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
