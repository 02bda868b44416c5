// Rate limit windows shared by instances in Redis: sliding windows, a sorted set per key with one entry per unit,
// several windows taken from at once, all or nothing, by one script. The takes a turn of the event loop asks for go
// to Redis together, those of one caller as one.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Take, Taken } from './ratelimit.store.js';

// KEYS: the counters; ARGV: now (ms), the window (ms), then each key's limit and units, then a nonce unique to this
// take. All or nothing: when one key lacks room, nothing is added anywhere. An entry's score is its time (ms); its
// member is made unique by the nonce and the unit's number, so takes in the same millisecond, on any instance, each
// count (a member named by the time alone was one entry for all of them).
const TAKE = `
local now = tonumber(ARGV[1])
local duration = tonumber(ARGV[2])
local nonce = ARGV[#ARGV]
local out = {}
local passed = 1
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, 0, now - duration)
  local count = redis.call('ZCARD', key)
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  local endsAt = now + duration
  if oldest[2] then endsAt = tonumber(oldest[2]) + duration end
  local max = tonumber(ARGV[1 + 2 * i])
  local units = tonumber(ARGV[2 + 2 * i])
  if count + units > max then passed = 0 end
  out[2 * i - 1] = max - count
  out[2 * i] = math.floor(endsAt)
end
if passed == 1 then
  for i, key in ipairs(KEYS) do
    local units = tonumber(ARGV[2 + 2 * i])
    for u = 1, units do
      redis.call('ZADD', key, now, nonce .. ':' .. u)
    end
    if units > 0 then redis.call('PEXPIRE', key, duration) end
    out[2 * i - 1] = out[2 * i - 1] - units
  end
end
table.insert(out, 1, passed)
return out
`;

/** Unique across takes: this process's random part and a count. */
const processPart = randomBytes(6).toString('base64url');
let counted = 0;
const nonce = (): string => {
  counted = (counted + 1) % Number.MAX_SAFE_INTEGER;
  return `${processPart}:${counted}`;
};

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
      nonce(),
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
