// Rate limit windows shared by instances in Redis: fixed windows as CONTRACT §10 has them (and as the memory store
// counts), one counter per key that expires with its window, several windows taken from at once, all or nothing, by
// one script. The takes a turn of the event loop asks for go to Redis together, those of one caller as one, and
// while one batch is out the takes that arrive wait for its answer and go as the next. Far from a window's limit a
// take is answered from what Redis last said, and counted there with the next batch (`View`).
import type { Redis } from 'ioredis';
import type { Take, Taken } from './ratelimit.store.js';
import { grant, grantable, heard, sending, type View } from './ratelimit.views.js';

// KEYS: the counters; ARGV: now (ms), the window (ms), then each key's limit and units, then 1 when the units were
// already granted here (added whatever the limits: a view's takes). All or nothing: when one key lacks room,
// nothing is added anywhere. A key's window begins with its first unit (SET … PX) and ends when the key
// expires; INCRBY keeps that expiry. O(1) per key whatever the limit: a sorted set with one entry per unit (a sliding
// window) made Redis's work, and its memory, grow with the traffic it allowed.
const TAKE = `
local now = tonumber(ARGV[1])
local duration = tonumber(ARGV[2])
local out = {}
local fresh = {}
local passed = 1
local granted = ARGV[3 + 2 * #KEYS] == '1'
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
  if used + units > max and not granted then passed = 0 end
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
  /** The windows' identity: the length, each key and its limit. */
  sig: string;
  /** Already answered from a view, to be counted whatever the limits (its `ok` and `fail` settle the view). */
  granted: boolean;
  ok(taken: Taken): void;
  fail(err: unknown): void;
}

/**
 * Per connection, the takes not yet sent and whether a batch is out. One batch at a time: the takes asked for while
 * one is out go together when its answer is in, so a busy instance sends one script per Redis round trip and caller,
 * not one per turn of its event loop (each round trip cost Redis ~140 µs of CPU on the bench's shared cores, where
 * a turn of 304s holds a dozen requests; bench S3 with REDIS_URL). Counts stay exact: every take is still Redis's.
 * A batch that holds only takes already granted (no request waits for it) goes `COUNT_LATER_MS` later, with what
 * was granted meanwhile.
 */
interface Outbox {
  /** Takes that wait for Redis's word. */
  waiting: Waiting[];
  /** By windows (`sig`): the units granted from views since the last batch left, to be counted as one take each. */
  granted: Map<string, Granted>;
  /** A batch is out: its answer schedules the next. */
  out: boolean;
  /** The next batch's timer, and whether it is the next turn's (a take waits) or `COUNT_LATER_MS`'s. */
  next: { soon: true; timer: NodeJS.Immediate } | { soon: false; timer: NodeJS.Timeout } | undefined;
  /** By windows (`sig`): what Redis last said of them, less what was granted here since. */
  views: Map<string, View>;
}

const outboxes = new WeakMap<Redis, Outbox>();

/** The units granted from one view since the last batch left, summed per key. */
interface Granted {
  sig: string;
  duration: number;
  takes: Take[];
  view: View;
}

/** How long units granted from a view may wait to be counted in Redis when no request waits with them. */
const COUNT_LATER_MS = 10;

/**
 * Sends what waits: in the next turn when a take waits for Redis's word (`soon`), else a little later; never while a
 * batch is out (its answer sends what arrived meanwhile).
 */
function schedule(db: WithTake, box: Outbox, soon: boolean): void {
  if (box.out || (box.next && (box.next.soon || !soon))) return;
  if (box.next) clearTimeout(box.next.timer);
  box.next = soon
    ? { soon, timer: setImmediate(() => send(db, box)) }
    : { soon, timer: setTimeout(() => send(db, box), COUNT_LATER_MS) };
}

function send(db: WithTake, box: Outbox): void {
  box.next = undefined;
  box.out = true;
  const these = box.waiting;
  box.waiting = [];
  // What the views granted goes out now, one take per windows: it is in this batch's answer.
  for (const { sig, duration, takes, view } of box.granted.values()) {
    const settled = sending(view, takes);
    these.push({ takes, duration, sig, granted: true, ok: settled, fail: settled });
  }
  box.granted.clear();
  flush(db, box, these)
    .catch((err: unknown) => {
      for (const w of these) w.fail(err);
    })
    .finally(() => {
      box.out = false;
      if (box.waiting.length > 0) schedule(db, box, true);
      else if (box.granted.size > 0) schedule(db, box, false);
    });
}

type Batch = readonly Pick<Waiting, 'takes' | 'duration' | 'granted'>[];

/** Runs the script once per element of `batch`, in one pipeline: one write, one read. */
async function run(db: WithTake, batch: Batch): Promise<Taken[]> {
  const p = db.pipeline() as unknown as Pipelined;
  const now = Date.now();
  for (const { takes, duration, granted } of batch)
    p.rateLimitTake(
      takes.length,
      ...takes.map((t) => t.key),
      now,
      duration,
      ...takes.flatMap((t) => [t.max, t.units]),
      granted ? 1 : 0,
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
 * The takes of one batch: those from the same windows (one caller's requests read together from its connections)
 * as one take of all their units, which, passing, is exactly each passing in turn; the rare merged take refused
 * (a window nearly spent) is taken again one by one. Merging matters: each command a pipeline carries cost the
 * service more than a request's own work on the 304 path (bench S3 with REDIS_URL, profile).
 */
async function flush(db: WithTake, box: Outbox, waiting: readonly Waiting[]): Promise<void> {
  const groups = new Map<string, Waiting[]>();
  for (const w of waiting) {
    const id = w.granted ? `+${w.sig}` : w.sig;
    const g = groups.get(id);
    if (g) g.push(w);
    else groups.set(id, [w]);
  }
  const all = [...groups.values()];
  const merged = all.map((g) =>
    g.length === 1
      ? g[0]!
      : {
          duration: g[0]!.duration,
          granted: g[0]!.granted,
          takes: g[0]!.takes.map((t, k) => ({ ...t, units: g.reduce((n, w) => n + w.takes[k]!.units, 0) })),
        },
  );
  const taken = await run(db, merged);
  const now = Date.now();
  const oneByOne: Waiting[] = [];
  for (const [i, g] of all.entries()) {
    const t = taken[i]!;
    if (t.passed || g.length === 1) heard(box.views, g[0]!.sig, t, now);
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
  const then = Date.now();
  for (const [i, w] of oneByOne.entries()) {
    heard(box.views, w.sig, again[i]!, then);
    w.ok(again[i]!);
  }
}

/** The windows' identity in views and merged takes: their length, each key and its limit. */
function sigOf(duration: number, takes: readonly Take[]): string {
  let sig = String(duration);
  for (const t of takes) sig += `\n${t.key}\n${t.max}`;
  return sig;
}

/**
 * Takes every unit or none, atomically, from counters shared in Redis: sent with the other takes waiting to go, or,
 * far from the windows' limits, answered at once from what Redis last said and counted there with the next batch.
 */
export function takeInRedis(redis: Redis, duration: number, takes: readonly Take[]): Taken | Promise<Taken> {
  const db = redis as WithTake;
  // Sent once, then run by its hash (EVALSHA).
  if (!db.rateLimitTake) db.defineCommand('rateLimitTake', { lua: TAKE });
  let box = outboxes.get(db);
  if (box === undefined) {
    box = { waiting: [], granted: new Map(), out: false, next: undefined, views: new Map() };
    outboxes.set(db, box);
  }
  const sig = sigOf(duration, takes);
  const view = box.views.get(sig);
  let answer: Taken | Promise<Taken>;
  if (view && grantable(view, takes, Date.now())) {
    let granted = box.granted.get(sig);
    if (granted === undefined) {
      granted = { sig, duration, takes: takes.map((t) => ({ key: t.key, max: t.max, units: 0 })), view };
      box.granted.set(sig, granted);
    }
    for (const [k, t] of takes.entries()) granted.takes[k]!.units += t.units;
    answer = grant(view, takes);
  } else {
    const { waiting } = box; // the next batch's: replaced only when it is sent
    answer = new Promise<Taken>((ok, fail) =>
      waiting.push({ takes, duration, sig, granted: false, ok, fail }),
    );
  }
  // A take that waits for Redis's word goes in the next turn; one granted here can wait to be counted.
  schedule(db, box, answer instanceof Promise);
  return answer;
}
