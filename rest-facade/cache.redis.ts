// The REST cache across instances (CONTRACT §10, §20): entries, their ETags and each car share's tag versions in
// Redis, and each instance's memo of the ETags it read (./etag-memo.ts).
import type { Redis } from 'ioredis';
import type { CachedResponse, CachedTag, RedisKeyNames, ResponseCache } from './cache.js';
import { etagMemo } from './etag-memo.js';

/** An entry as Redis holds it. */
/** An entry as Redis keeps it: JSON, its body as text. */
interface Stored {
  value: Omit<CachedResponse, 'body'> & { body: string };
  versions: Record<string, number>;
}

/** Per car share: its tag versions in one hash, its entries each under its own key, and each entry's ETag beside it. */
const VERSIONS = 'rest:cache:versions';
const ENTRY = 'rest:cache:';
const ETAG = 'rest:cache:etag:';

/** Stands for "version unknown" when Redis cannot be read: an entry tagged with it is never stored. */
const UNKNOWN = -1;

/**
 * The instances' word to each other of the tag versions they bump, which lets each memoize the ETags it reads
 * (`./etag-memo.ts`): what one `announce`s reaches every instance's handler given to `hear`, in order with the
 * service's other announcements, and before any request that arrived after it is answered.
 */
export interface SharedBumps {
  announce(announcement: string): Promise<void>;
  /** Hears announcements (the handler is called without one when some may have been missed); returns its stop. */
  hear(handler: (announcement?: string) => void): () => void;
  /** True while announcements are heard. */
  listening(): boolean;
}

/**
 * Across instances: entries expire in Redis by themselves; each car share's tag versions live in one Redis hash.
 * Keys are `<REDIS_KEY_PREFIX><carShareId>:rest:cache:…`. When Redis cannot be reached the cache steps aside: reads
 * miss, nothing is stored, and a lost version bump can leave an entry stale for at most its TTL once Redis is back.
 */
export function redisCache(
  redis: Redis,
  keys: RedisKeyNames,
  onError: (err: unknown) => void = () => undefined,
  shared?: SharedBumps,
): ResponseCache & { close(): void } {
  // Trusted from the first time the announcements are heard, while they are.
  let hearing = false;
  const memo = shared && etagMemo(() => hearing && shared.listening());
  const versionsOf = async (carShareId: string, tags: readonly string[]): Promise<Record<string, number>> => {
    if (tags.length === 0) return {};
    try {
      const vs = await redis.hmget(keys.carShare(carShareId, VERSIONS), ...tags);
      return Object.fromEntries(tags.map((t, i) => [t, Number(vs[i] ?? 0)]));
    } catch (err) {
      onError(err);
      return Object.fromEntries(tags.map((t) => [t, UNKNOWN]));
    }
  };
  const fresh = (versions: Record<string, number>, now: Record<string, number>) =>
    Object.entries(versions).every(([t, v]) => v !== UNKNOWN && now[t] === v);
  const stopHearing =
    shared && memo
      ? shared.hear((announcement) => {
          if (announcement === undefined) {
            memo.clear();
            hearing = true;
            return;
          }
          try {
            const { carShareId, tags } = JSON.parse(announcement) as { carShareId: string; tags: string[] };
            memo.bumped(carShareId, tags);
          } catch (err) {
            // Not one of ours: nothing memoized is trusted any more.
            memo.clear();
            onError(err);
          }
        })
      : () => undefined;
  return {
    async etagOf(carShareId, key, tags, heard) {
      // Only after the barrier: the memo knows of every bump announced before the request arrived.
      const known = heard ? memo?.get(carShareId, key, Date.now()) : undefined;
      if (known !== undefined) return known;
      const read = heard ? memo?.reading(carShareId, tags) : undefined;
      try {
        // One round trip: the ETag and the versions it was stored under, the route's versions now, and how long the
        // entry has left (what the memo may keep it).
        const etagKey = keys.carShare(carShareId, `${ETAG}${key}`);
        const [[, raw], [, now], [, ttl]] = (await redis
          .pipeline()
          .get(etagKey)
          .hmget(keys.carShare(carShareId, VERSIONS), ...(tags.length ? tags : ['-']))
          .pttl(etagKey)
          .exec()) as [[unknown, string | null], [unknown, (string | null)[]], [unknown, number]];
        if (!raw) return undefined;
        const s = JSON.parse(raw) as { etag: string; versions: Record<string, number> };
        const current = Object.fromEntries(tags.map((t, i) => [t, Number(now[i] ?? 0)]));
        if (!fresh(s.versions, current)) return undefined;
        if (read && ttl > 0) memo?.put(carShareId, key, read, s.etag, Date.now() + ttl);
        return s.etag;
      } catch (err) {
        onError(err);
        return undefined;
      }
    },
    async get(carShareId, key) {
      try {
        const raw = await redis.get(keys.carShare(carShareId, `${ENTRY}${key}`));
        if (!raw) return undefined;
        const s = JSON.parse(raw) as Stored;
        return fresh(s.versions, await versionsOf(carShareId, Object.keys(s.versions)))
          ? { ...s.value, body: Buffer.from(s.value.body) }
          : undefined;
      } catch (err) {
        onError(err);
        return undefined;
      }
    },
    versions: versionsOf,
    async set(carShareId, key, value: CachedResponse | CachedTag, versions, ttl) {
      if (Object.values(versions).includes(UNKNOWN)) return;
      const m = redis.multi();
      // Without a body (a key's first answer: `CachedTag`) only the ETag is written.
      if ('body' in value) {
        const stored: Stored = { value: { ...value, body: value.body.toString() }, versions };
        m.set(keys.carShare(carShareId, `${ENTRY}${key}`), JSON.stringify(stored), 'EX', ttl);
      }
      await m
        .set(
          keys.carShare(carShareId, `${ETAG}${key}`),
          JSON.stringify({ etag: value.etag, versions }),
          'EX',
          ttl,
        )
        .exec()
        .catch(onError);
    },
    async invalidate(carShareId, tags) {
      if (tags.length === 0) return;
      const m = redis.multi();
      const hash = keys.carShare(carShareId, VERSIONS);
      for (const t of tags) m.hincrby(hash, t, 1);
      await m.exec().catch(onError);
      // Redis first: an instance that hears of the bump and reads again finds it there.
      if (!shared || !memo) return;
      memo.bumped(carShareId, tags);
      await shared.announce(JSON.stringify({ carShareId, tags })).catch(onError);
    },
    close: stopHearing,
  };
}
