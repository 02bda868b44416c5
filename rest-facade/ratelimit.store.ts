// Where the rate limits' counts live: fixed windows in this process's memory (bounded, no sweep over every key),
// or sliding windows in Redis (a sorted set per key, one entry per unit), several windows taken from at once, all or
// nothing, by one script: a request's own window and its car share's ceiling, an action's units.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** One key's window: how many units it has used, and when it ends (epoch milliseconds). */
export interface MemoryWindow {
  used: number;
  endsAt: number;
}

/**
 * Fixed windows in memory. Windows are also queued in the order they began, which, every window having the same
 * length, is the order they end: ended windows leave from the queue's head as they are met, so no request walks
 * all the keys. (Not the map's own order: a Map deleted from its front keeps holes that its iterators walk again
 * until it is rehashed, which made each request cost as much as the keys seen.) At `maxKeys` the oldest window
 * is forgotten to make room (its key starts afresh): clients rotating addresses cannot grow memory without bound,
 * only shorten the window of the oldest key by flooding the table.
 */
export class MemoryWindows {
  readonly #windows = new Map<string, MemoryWindow & { key: string }>();
  #queue: (MemoryWindow & { key: string })[] = [];
  #head = 0;
  constructor(
    readonly windowMs: number,
    readonly maxKeys = 100_000,
  ) {}

  /** The key's current window, a fresh one when it had none or its window has ended. */
  window(key: string, now: number): MemoryWindow {
    while (this.#head < this.#queue.length && this.#queue[this.#head]!.endsAt <= now) this.#forgetOldest();
    const w = this.#windows.get(key);
    if (w !== undefined && w.endsAt > now) return w;
    while (this.#windows.size >= this.maxKeys && this.#head < this.#queue.length) this.#forgetOldest();
    const fresh = { key, used: 0, endsAt: now + this.windowMs };
    this.#windows.set(key, fresh);
    this.#queue.push(fresh);
    return fresh;
  }

  #forgetOldest(): void {
    const w = this.#queue[this.#head++]!;
    // A key whose window restarted is queued again; its old entry only leaves the queue.
    if (this.#windows.get(w.key) === w) this.#windows.delete(w.key);
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
  }
}

/** What taking units from several keys at once decided. */
export interface Taken {
  passed: boolean;
  /** Per key, in the order given: units left after this take (as they were when refused), and its window's end. */
  windows: { remaining: number; endsAt: number }[];
}

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

export interface Take {
  key: string;
  max: number;
  units: number;
}

/**
 * Takes units from several windows of one car share at once, all or nothing, wherever the counters live; the keys
 * given are the car share's own (`caller:sub:…`), placed in its namespace by the store (none without a car share).
 */
export type TakeUnits = (carShareId: string | undefined, takes: readonly Take[]) => Taken | Promise<Taken>;

/** Unique across takes: this process's random part and a count. */
const processPart = randomBytes(6).toString('base64url');
let counted = 0;
const nonce = (): string => {
  counted = (counted + 1) % Number.MAX_SAFE_INTEGER;
  return `${processPart}:${counted}`;
};

type Script = (n: number, ...args: (string | number)[]) => Promise<number[]>;
type WithTake = Redis & { rateLimitTake?: Script };

/** One take waiting for its turn's round trip. */
interface Waiting {
  args: (string | number)[];
  ok(out: number[]): void;
  fail(err: unknown): void;
}

/** The takes asked for in this turn of the event loop, per connection: sent together at its end. */
const turns = new WeakMap<Redis, Waiting[]>();

/**
 * Runs the take script once per take, every take of one turn of the event loop in one pipeline: one write and one
 * read for all of them (a poll of many clients revalidating at once), where each take's own round trip cost the
 * service two system calls of its own (bench S3 with REDIS_URL). Each take is still its own script run: atomic,
 * all or nothing, whatever else the pipeline holds.
 */
function inTurn(db: WithTake, args: (string | number)[]): Promise<number[]> {
  return new Promise((ok, fail) => {
    let waiting = turns.get(db);
    if (waiting === undefined) {
      const these: Waiting[] = [];
      waiting = these;
      turns.set(db, these);
      setImmediate(() => {
        turns.delete(db);
        const p = db.pipeline() as unknown as { rateLimitTake: (...a: (string | number)[]) => void };
        for (const w of these) p.rateLimitTake(...w.args);
        (p as unknown as ReturnType<Redis['pipeline']>).exec().then(
          (results) => {
            for (const [i, w] of these.entries()) {
              const [err, out] = results?.[i] ?? [new Error('rate limit take: no answer'), undefined];
              if (err) w.fail(err);
              else w.ok(out as number[]);
            }
          },
          (err: unknown) => {
            for (const w of these) w.fail(err);
          },
        );
      });
    }
    waiting.push({ args, ok, fail });
  });
}

/** Takes every unit or none, atomically, from counters shared in Redis. */
export async function takeInRedis(redis: Redis, duration: number, takes: readonly Take[]): Promise<Taken> {
  const db = redis as WithTake;
  // Sent once, then run by its hash (EVALSHA).
  if (!db.rateLimitTake) db.defineCommand('rateLimitTake', { lua: TAKE });
  const args = takes.flatMap((t) => [t.max, t.units]);
  const keys = takes.map((t) => t.key);
  const out = await inTurn(db, [takes.length, ...keys, Date.now(), duration, ...args, nonce()]);
  return {
    passed: out[0] === 1,
    windows: takes.map((_, i) => ({ remaining: Math.max(0, out[1 + 2 * i]!), endsAt: out[2 + 2 * i]! })),
  };
}

/** The same, in memory: every unit or none. */
export function takeInMemory(windows: MemoryWindows, takes: readonly Take[], now: number): Taken {
  const ws = takes.map((t) => windows.window(t.key, now));
  const passed = takes.every((t, i) => ws[i]!.used + t.units <= t.max);
  if (passed) for (const [i, t] of takes.entries()) ws[i]!.used += t.units;
  return {
    passed,
    windows: takes.map((t, i) => ({ remaining: Math.max(0, t.max - ws[i]!.used), endsAt: ws[i]!.endsAt })),
  };
}
