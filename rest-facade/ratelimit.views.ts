// What one instance last heard from Redis of a caller's rate-limit windows (./ratelimit.redis.ts), and the takes
// it grants from that far from the windows' limits, before Redis has counted them.
import type { Take, Taken } from './ratelimit.store.js';

/**
 * Windows as this instance last heard them from Redis. While a take leaves every window at least an eighth of its
 * limit (and 64 units), and little is granted here that Redis has not counted yet, it is answered at once from here
 * and counted in Redis with the next batch: a busy caller's requests no longer each wait a round trip (bench S3
 * with REDIS_URL: ~2 ms on shared cores). Redis still counts every unit, and a view is trusted for a second after
 * it was heard, so instances that spend from views can overshoot a limit only by what each grants before hearing
 * Redis again (at most a 64th of the limit each); near a limit every take is Redis's, all or nothing, and in one
 * instance `RateLimit-Remaining` is exact. Across instances it lags by what the others took since the last answer.
 */
export interface View {
  /** Per key, as Redis last answered, less what was granted here since. */
  remaining: number[];
  /** Per key, its window's end. */
  ends: number[];
  heardAt: number;
  /** Per key, the units granted here that Redis has not answered for yet. */
  unconfirmed: number[];
  /** Of those, the units per key granted after the batch now out was formed (not in its answer). */
  unsent: number[];
}

/** A view is trusted this long after Redis answered. */
const VIEW_MS = 1_000;
/** Views kept per connection: past this, those no longer trusted are dropped, and no new one is made till then. */
const MAX_VIEWS = 10_000;

/** The room a take from a view must leave in each window; what it may grant ahead of Redis is a 64th of the limit. */
const marginOf = (max: number) => Math.max(64, Math.ceil(max / 8));

export function grantable(view: View, takes: readonly Take[], now: number): boolean {
  if (now - view.heardAt > VIEW_MS || view.ends.some((end) => now >= end)) return false;
  for (const [k, t] of takes.entries()) {
    if (view.remaining[k]! - t.units < marginOf(t.max)) return false;
    if (view.unconfirmed[k]! + t.units > Math.floor(t.max / 64)) return false;
  }
  return true;
}

/** Grants the take from the view: what it answers, counted in Redis later. */
export function grant(view: View, takes: readonly Take[]): Taken {
  for (const [k, t] of takes.entries()) {
    view.remaining[k]! -= t.units;
    view.unsent[k]! += t.units;
    view.unconfirmed[k]! += t.units;
  }
  return {
    passed: true,
    windows: view.remaining.map((remaining, k) => ({ remaining, endsAt: view.ends[k]! })),
  };
}

/**
 * The units granted from the view now leave in a batch; the returned function, called once its answer is in (or it
 * failed), settles them. Called again it does nothing: a batch that failed half way fails every take in it.
 */
export function sending(view: View, takes: readonly Take[]): () => void {
  for (const [k, t] of takes.entries()) view.unsent[k]! -= t.units;
  let settled = false;
  return () => {
    if (settled) return;
    settled = true;
    for (const [k, t] of takes.entries()) view.unconfirmed[k]! -= t.units;
  };
}

/** What Redis answered for the windows, less what was granted here after the batch left. */
export function heard(views: Map<string, View>, sig: string, taken: Taken, now: number): void {
  const ends = taken.windows.map((w) => w.endsAt);
  const view = views.get(sig);
  if (view) {
    view.remaining = taken.windows.map((w, k) => w.remaining - view.unsent[k]!);
    view.ends = ends;
    view.heardAt = now;
    return;
  }
  if (views.size >= MAX_VIEWS)
    for (const [s, v] of views)
      if (now - v.heardAt > VIEW_MS && v.unconfirmed.every((u) => u === 0)) views.delete(s);
  if (views.size >= MAX_VIEWS) return;
  views.set(sig, {
    remaining: taken.windows.map((w) => w.remaining),
    ends,
    heardAt: now,
    unconfirmed: taken.windows.map(() => 0),
    unsent: taken.windows.map(() => 0),
  });
}
