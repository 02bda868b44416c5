// Which car share's claimed deliveries take this instance's delivery slots (CONTRACT §20, §24 rule 5), apart from
// the worker (delivery.worker.ts) that claims, sends and records them. Each car share with deliveries due has a
// lane of its own. Slots go round the lanes (least recently served first) and a lane may hold only its share of
// them, so a car share with a long backlog to a slow receiver cannot fill every slot; and a few slots beyond
// `concurrency` are kept for a car share with nothing in flight, so its first delivery starts at once even while
// every other slot waits on a slow receiver. The lanes also say how much each claims ahead and for how long, and
// which claims go back unsent.
import type { Clock } from '../shared/clock.js';
import { isUuid } from '../shared/ids.js';

/** Rounds of slots claimed ahead: claims (a round-trip each) overlap the sending instead of pausing it. */
const PREFETCH_ROUNDS = 4;
/** A queued delivery is sent only while its lease outlasts its deadline by this much; otherwise handed back. */
const LEASE_MARGIN_MS = 1000;

/** The worker's options the lanes read (WorkerOptions, delivery.worker.ts, says what each is). */
export interface LaneOptions {
  clock: Clock;
  concurrency: number;
  /** Default an eighth of `concurrency`, at least one. */
  reserve?: number | undefined;
  timeoutMs: number;
  leaseMs: number;
  pollMs: number;
  isSuspended?: ((carShareId: string) => boolean) | undefined;
}

/** A claimed delivery waiting in its lane: when its claim's lease runs out is all the lanes read of it. */
export interface Leased {
  /** When the claim's lease runs out (the worker's clock). */
  leaseUntilMs: number;
}

/** One car share's deliveries in this worker. */
export interface Lane<T extends Leased> {
  readonly id: string;
  /** Claimed and not yet started. */
  queue: T[];
  /** Started and still sending: a slot each (counted by `next` and `sent`). */
  sending: number;
  /** Its last claim found fewer due than asked, and no look across car shares has found more since. */
  dry: boolean;
}

/** What a lane claims now: at most `limit` deliveries, each leased for `leaseMs`. */
export interface ClaimSize {
  limit: number;
  leaseMs: number;
}

export class CarShareLanes<T extends Leased> {
  readonly #o: LaneOptions;
  readonly #reserve: number;
  /** By car share, least recently served first (a lane moves to the end when one of its deliveries starts). */
  readonly #lanes = new Map<string, Lane<T>>();
  /** Deliveries still sending, in every lane: a slot each. */
  #sending = 0;
  /** Something may have become due that no lane knows of (a NOTIFY, a wake): look across car shares. */
  #lookAround = true;
  #lookedAt = Number.NEGATIVE_INFINITY;

  constructor(opts: LaneOptions) {
    this.#o = opts;
    this.#reserve = opts.reserve ?? Math.max(1, Math.floor(opts.concurrency / 8));
  }

  /** Work may have become due: in the car share named, or, when none is, in one that no lane may know of. */
  wake(carShareId?: string): void {
    if (isUuid(carShareId)) this.lane(carShareId).dry = false;
    else this.#lookAround = true;
  }

  /** Whether to look across car shares for due deliveries now: after a wake that named none, or once per poll. */
  looking(): boolean {
    if (!this.#lookAround && performance.now() - this.#lookedAt < this.#o.pollMs) return false;
    this.#lookAround = false;
    this.#lookedAt = performance.now();
    return true;
  }

  /**
   * What a look across car shares found: the car shares with deliveries due. The others' lanes are dry, and a dry
   * lane with nothing queued or sending is dropped.
   */
  found(due: ReadonlySet<string>): void {
    for (const id of due) this.lane(id).dry = false;
    for (const lane of this.#lanes.values()) {
      if (!due.has(lane.id)) lane.dry = true;
      if (lane.dry && lane.queue.length === 0 && lane.sending === 0) this.#lanes.delete(lane.id);
    }
  }

  /** A car share's lane, made when it has none. */
  lane(id: string): Lane<T> {
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

  /** The lanes to claim for, in the order to claim. */
  toClaim(): Lane<T>[] {
    const lanes = [...this.#lanes.values()].filter((l) => !l.dry);
    // A car share with nothing in flight first: its first delivery may take a reserved slot.
    lanes.sort((a, b) => Number(a.sending + a.queue.length > 0) - Number(b.sending + b.queue.length > 0));
    return lanes;
  }

  /**
   * How much a lane claims now, or nothing: it claims while it has fewer than PREFETCH_ROUNDS rounds of its slots
   * sent or queued, so the next batches are claimed while the current ones go out. Asked again before each claim,
   * as the lanes with work change with every claim. A queued delivery may wait a round of deadlines per round
   * ahead of it: its lease is longer by as many deadlines (and one whose lease ran short anyway is handed back
   * unsent by `next`).
   */
  claimSize(lane: Lane<T>): ClaimSize | undefined {
    const n = this.#active();
    const cap = this.#cap(n);
    const ahead = lane.sending + lane.queue.length;
    const want = PREFETCH_ROUNDS * cap - ahead;
    // While busy, claim once a round is wanted (fewer, larger claims).
    if (want <= 0 || (ahead > 0 && want < cap)) return undefined;
    // Rounds this lane's last claim waits, were one more car share to take its share of the slots meanwhile.
    const rate = this.#o.concurrency / (n + 1);
    const leaseMs = this.#o.leaseMs + Math.floor((ahead + want - 1) / Math.max(1, rate)) * this.#o.timeoutMs;
    return { limit: want, leaseMs };
  }

  /**
   * The next queued delivery to start, taken from its lane, or none while no lane may take a slot: round the
   * lanes, least recently served first, each within its share of the slots. It holds a slot until `sent`, and its
   * lane is now the most recently served. What may no longer be sent goes to `handBack` instead.
   */
  next(handBack: (queued: T[]) => void): { lane: Lane<T>; queued: T } | undefined {
    for (;;) {
      const lane = this.#turn(handBack);
      if (!lane) return undefined;
      const queued = lane.queue.shift()!;
      // Queued longer than its lease allows: another worker may hold it by the time it is sent.
      if (queued.leaseUntilMs - this.#o.clock.now().getTime() < this.#o.timeoutMs + LEASE_MARGIN_MS) {
        handBack([queued]);
        continue;
      }
      this.#lanes.delete(lane.id);
      this.#lanes.set(lane.id, lane);
      this.#sending += 1;
      lane.sending += 1;
      return { lane, queued };
    }
  }

  /** One of the lane's deliveries is no longer sending: its slot is free. */
  sent(lane: Lane<T>): void {
    this.#sending -= 1;
    lane.sending -= 1;
  }

  /** Every lane's queue emptied, least recently served lane first: deliveries claimed that will not start. */
  drain(): T[] {
    return [...this.#lanes.values()].flatMap((l) => l.queue.splice(0));
  }

  /** The first lane, least recently served first, that has a delivery queued and may take a slot for it. */
  #turn(handBack: (queued: T[]) => void): Lane<T> | undefined {
    const cap = this.#cap(this.#active());
    for (const l of this.#lanes.values()) {
      if (l.queue.length === 0) continue;
      // Suspended since its claim (CONTRACT §23): nothing more is sent; the claims go back for after reactivation.
      if (this.#o.isSuspended?.(l.id)) {
        handBack(l.queue.splice(0));
        l.dry = true;
        continue;
      }
      const may =
        l.sending === 0
          ? this.#sending < this.#o.concurrency + this.#reserve
          : this.#sending < this.#o.concurrency && l.sending < cap;
      if (may) return l;
    }
    return undefined;
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
}
