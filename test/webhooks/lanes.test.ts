// The car share lanes of the delivery worker (src/delivery/delivery.lanes.ts): which queued delivery takes the next
// slot, how much a lane claims ahead and for how long, and which claims go back unsent. No database: the lanes
// only count.
import { describe, expect, it } from 'vitest';
import { CarShareLanes, type LaneOptions } from '../../src/delivery/delivery.lanes.js';
import { ManualClock } from '../../src/shared/clock.js';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const C = '00000000-0000-4000-8000-00000000000c';

interface Item {
  name: string;
  leaseUntilMs: number;
}

function setUp(o: Partial<LaneOptions> = {}) {
  const clock = new ManualClock('2026-07-01T10:00:00.000Z');
  const lanes = new CarShareLanes<Item>({
    clock,
    concurrency: 4,
    reserve: 1,
    timeoutMs: 10_000,
    leaseMs: 25_000,
    pollMs: 3_600_000,
    ...o,
  });
  const handedBack: Item[] = [];
  /** Queues `n` deliveries in a car share's lane, leased for an hour unless told. */
  const queue = (id: string, n: number, leaseUntilMs = clock.now().getTime() + 3_600_000) => {
    const lane = lanes.lane(id);
    lane.dry = false;
    for (let i = 0; i < n; i++) lane.queue.push({ name: `${id.slice(-1)}${i}`, leaseUntilMs });
    return lane;
  };
  /** Starts deliveries until no lane may: the car share of each, in order. */
  const startAll = () => {
    const started: string[] = [];
    for (
      let next = lanes.next((q) => handedBack.push(...q));
      next;
      next = lanes.next((q) => handedBack.push(...q))
    )
      started.push(next.lane.id);
    return started;
  };
  return { clock, lanes, handedBack, queue, startAll };
}

describe('slots', () => {
  it('go round the lanes, least recently served first, each up to its share of `concurrency`', () => {
    const { lanes, queue, startAll } = setUp();
    const a = queue(A, 10);
    queue(B, 10); // a new lane has been served least recently of all: it goes first
    expect(startAll()).toEqual([B, A, B, A]);
    // A freed slot goes to a lane under its share, not to B (served less recently, but at its share).
    lanes.sent(a);
    expect(startAll()).toEqual([A]);
  });

  it('lets one car share take every slot while it is the only one with work', () => {
    const { queue, startAll } = setUp();
    queue(A, 10);
    expect(startAll()).toEqual([A, A, A, A]);
  });

  it('keep `reserve` beyond `concurrency` for a car share with nothing in flight, and only for it', () => {
    const { lanes, queue, startAll } = setUp();
    queue(A, 10);
    expect(startAll()).toEqual([A, A, A, A]);
    queue(B, 3);
    queue(C, 3);
    // One reserved slot: the first of the idle car shares (C, the newest lane) takes it, and B waits for the
    // next slot freed.
    expect(startAll()).toEqual([C]);
    lanes.sent(lanes.lane(A));
    expect(startAll()).toEqual([B]);
  });
});

describe('claims handed back unsent', () => {
  it('are a suspended car share’s whole queue, and its lane is dry', () => {
    const { lanes, handedBack, queue, startAll } = setUp({ isSuspended: (id) => id === B });
    queue(A, 1);
    const b = queue(B, 2);
    expect(startAll()).toEqual([A]);
    expect(handedBack.map((q) => q.name)).toEqual(['b0', 'b1']);
    expect(b.queue).toEqual([]);
    expect(b.dry).toBe(true);
    expect(lanes.toClaim().map((l) => l.id)).toEqual([A]);
  });

  it('are a delivery whose lease no longer outlasts its deadline by a second', () => {
    const { clock, lanes, handedBack, startAll } = setUp();
    const now = clock.now().getTime();
    const lane = lanes.lane(A);
    lane.queue.push(
      { name: 'short', leaseUntilMs: now + 10_999 },
      { name: 'enough', leaseUntilMs: now + 11_000 },
    );
    expect(startAll()).toEqual([A]);
    expect(handedBack.map((q) => q.name)).toEqual(['short']);
    expect(lane.sending).toBe(1);
    expect(lane.queue).toEqual([]);
  });

  it('are every queued delivery when the lanes are drained', () => {
    const { lanes, queue } = setUp();
    queue(A, 2);
    queue(B, 1);
    expect(lanes.drain().map((q) => q.name)).toEqual(['b0', 'a0', 'a1']);
    expect(lanes.next(() => undefined)).toBeUndefined();
  });
});

describe('claim size', () => {
  it('is four rounds of the lane’s share, leased a deadline longer per round the last may wait', () => {
    const { lanes, queue } = setUp({ concurrency: 32, reserve: undefined });
    const a = queue(A, 0);
    // One car share with work: its share is all 32 slots; were another to come, 16 a round, so the 128th waits
    // floor(127 / 16) = 7 rounds of 10 s beyond the 25 s lease.
    expect(lanes.claimSize(a)).toEqual({ limit: 128, leaseMs: 25_000 + 7 * 10_000 });
    queue(B, 0);
    // Two: 16 slots each, four rounds = 64; 32 / 3 a round, so floor(63 / 10.67) = 5 rounds.
    expect(lanes.claimSize(a)).toEqual({ limit: 64, leaseMs: 25_000 + 5 * 10_000 });
  });

  it('is nothing while a busy lane lacks less than a round, then what tops it up to four rounds', () => {
    const { lanes, queue } = setUp({ concurrency: 32 });
    const a = queue(A, 97);
    expect(lanes.claimSize(a)).toBeUndefined();
    a.queue.pop();
    expect(lanes.claimSize(a)).toEqual({ limit: 32, leaseMs: 25_000 + Math.floor(127 / 16) * 10_000 });
    queue(A, 32);
    expect(lanes.claimSize(a)).toBeUndefined();
  });
});

describe('which car shares are claimed for', () => {
  it('those found due, the ones with nothing in flight first; a look that finds one no more dries its lane', () => {
    const { lanes, startAll } = setUp();
    lanes.found(new Set([A, B, C]));
    lanes.lane(B).queue.push({ name: 'b0', leaseUntilMs: Number.POSITIVE_INFINITY });
    expect(lanes.toClaim().map((l) => l.id)).toEqual([C, A, B]);
    lanes.found(new Set([A]));
    expect(lanes.toClaim().map((l) => l.id)).toEqual([A]);
    // Dry is about claiming: what B has queued still goes out.
    expect(startAll()).toEqual([B]);
  });

  it('looks across car shares at first, then only after a wake naming none (or a poll later)', () => {
    const { lanes } = setUp();
    expect(lanes.looking()).toBe(true);
    expect(lanes.looking()).toBe(false);
    // A wake naming a car share makes its lane due without a look.
    lanes.wake(A);
    expect(lanes.looking()).toBe(false);
    expect(lanes.toClaim().map((l) => l.id)).toEqual([A]);
    lanes.wake('not a car share');
    expect(lanes.looking()).toBe(true);
    expect(lanes.looking()).toBe(false);
  });

  it('looks again once a poll has passed', () => {
    const { lanes } = setUp({ pollMs: 0 });
    expect(lanes.looking()).toBe(true);
    expect(lanes.looking()).toBe(true);
  });
});
