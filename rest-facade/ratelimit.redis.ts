// Rate limit windows shared by instances in Redis: fixed windows as CONTRACT §10 has them (and as the memory store
// counts), one counter per key that expires with its window, several windows taken from at once, all or nothing, by
// one script. The takes a turn of the event loop asks for go to Redis together, those of one caller as one.
import type { Redis } from 'ioredis';
import type { Take, Taken } from './ratelimit.store.js';

// KEYS: the counters; ARGV: now (ms), the window (ms), then each key's limit and units. All or nothing: when one key
// lacks room, nothing is added anywhere. A key's window begins with its first unit (SET … PX) and ends when the key
// expires; INCRBY keeps that expiry. O(1) per key whatever the limit: a sorted set with one entry per unit (a sliding
// window) made Redis's work, and its memory, grow with the traffic it allowed.
const TAKE = `
local now = tonumber(ARGV[1])
local duration = tonumber(ARGV[2])
local out = {}
local fresh = {}
local passed = 1
for i, key in ipairs(KEYS) do
  local used = 0
  local endsAt = now + duration
  -- A key of another type (the sorted set of the sliding windows counted before) starts afresh: SET replaces it.
  local ttl = -2
  if redis.call('TYPE', key)['ok'] == 'string' then ttl = redis.call('PTTL', key) end
  if ttl > 0 then
    used = tonumber(redis.call('GET', key) or '0')
    endsAt = now + ttl
  else
    fresh[i] = true
  end
  local max = tonumber(ARGV[1 + 2 * i])
  local units = tonumber(ARGV[2 + 2 * i])
  if used + units > max then passed = 0 end
  out[2 * i - 1] = max - used
  out[2 * i] = endsAt
end
if passed == 1 then
  for i, key in ipairs(KEYS) do
    local units = tonumber(ARGV[2 + 2 * i])
    if units > 0 then
      if fresh[i] then redis.call('SET', key, units, 'PX', duration) else redis.call('INCRBY', key, units) end
      out[2 * i - 1] = out[2 * i - 1] - units
    end
  end
end
table.insert(out, 1, passed)
return out
`;

type Script = (n: number, ...args: (string | number)[]) => Promise<number[]>;
type WithTake = Redis & { rateLimitTake?: Script };
type Pipelined = {
  rateLimitTake(...args: (string | number)[]): void;
  exec: ReturnType<Redis['pipeline']>['exec'];
};

/** One take waiting for its turn's round trip. */
interface Waiting {
  takes: readonly Take[];
  /** The windows' length (ms). */
  duration: number;
  ok(taken: Taken): void;
  fail(err: unknown): void;
}

/** The takes asked for in this turn of the event loop, per connection: sent together at its end. */
const turns = new WeakMap<Redis, Waiting[]>();

type Batch = readonly Pick<Waiting, 'takes' | 'duration'>[];

/** Runs the script once per element of `batch`, in one pipeline: one write, one read. */
async function run(db: WithTake, batch: Batch): Promise<Taken[]> {
  const p = db.pipeline() as unknown as Pipelined;
  const now = Date.now();
  for (const { takes, duration } of batch)
    p.rateLimitTake(
      takes.length,
      ...takes.map((t) => t.key),
      now,
      duration,
      ...takes.flatMap((t) => [t.max, t.units]),
    );
  const results = (await p.exec()) ?? [];
  return batch.map(({ takes }, i) => {
    const [err, out] = results[i] ?? [new Error('rate limit take: no answer'), undefined];
    if (err) throw err;
    const o = out as number[];
    return {
      passed: o[0] === 1,
      windows: takes.map((_, k) => ({ remaining: Math.max(0, o[1 + 2 * k]!), endsAt: o[2 + 2 * k]! })),
    };
  });
}

/**
 * The takes of one turn: those from the same windows (one caller's requests read together from its connections)
 * as one take of all their units, which, passing, is exactly each passing in turn; the rare merged take refused
 * (a window nearly spent) is taken again one by one. Merging matters: each command a pipeline carries cost the
 * service more than a request's own work on the 304 path (bench S3 with REDIS_URL, profile).
 */
async function flush(db: WithTake, waiting: readonly Waiting[]): Promise<void> {
  if (waiting.length === 1) {
    const [taken] = await run(db, waiting);
    return waiting[0]!.ok(taken!);
  }
  const groups = new Map<string, Waiting[]>();
  for (const w of waiting) {
    let sig = String(w.duration);
    for (const t of w.takes) sig += `\n${t.key}\n${t.max}`;
    const g = groups.get(sig);
    if (g) g.push(w);
    else groups.set(sig, [w]);
  }
  const all = [...groups.values()];
  const merged = all.map((g) =>
    g.length === 1
      ? g[0]!
      : {
          duration: g[0]!.duration,
          takes: g[0]!.takes.map((t, k) => ({ ...t, units: g.reduce((n, w) => n + w.takes[k]!.units, 0) })),
        },
  );
  const taken = await run(db, merged);
  const oneByOne: Waiting[] = [];
  for (const [i, g] of all.entries()) {
    const t = taken[i]!;
    if (g.length === 1) g[0]!.ok(t);
    else if (!t.passed) oneByOne.push(...g);
    else {
      // Each as if taken in turn: what the later ones took was still there after it.
      const later = t.windows.map(() => 0);
      for (let j = g.length - 1; j >= 0; j--) {
        const w = g[j]!;
        w.ok({
          passed: true,
          windows: t.windows.map((win, k) => ({ remaining: win.remaining + later[k]!, endsAt: win.endsAt })),
        });
        for (const [k, take] of w.takes.entries()) later[k]! += take.units;
      }
    }
  }
  if (oneByOne.length === 0) return;
  const again = await run(db, oneByOne);
  for (const [i, w] of oneByOne.entries()) w.ok(again[i]!);
}

/** Takes every unit or none, atomically, from counters shared in Redis: sent with the rest of this turn's takes. */
export function takeInRedis(redis: Redis, duration: number, takes: readonly Take[]): Promise<Taken> {
  const db = redis as WithTake;
  // Sent once, then run by its hash (EVALSHA).
  if (!db.rateLimitTake) db.defineCommand('rateLimitTake', { lua: TAKE });
  return new Promise((ok, fail) => {
    let waiting = turns.get(db);
    if (waiting === undefined) {
      const these: Waiting[] = [];
      waiting = these;
      turns.set(db, these);
      setImmediate(() => {
        turns.delete(db);
        flush(db, these).catch((err: unknown) => {
          for (const w of these) w.fail(err);
        });
      });
    }
    waiting.push({ takes, duration, ok, fail });
  });
}
