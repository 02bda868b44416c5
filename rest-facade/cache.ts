// HTTP caching (CONTRACT §10): strong ETags per representation, If-None-Match per RFC 9110, and a
// server-side cache of GET responses per caller whose entries carry resource tags: a mutation bumps its
// tags' versions, so every entry that showed those resources is stale for every caller at once. All of it is per
// car share (CONTRACT §20): entries, tag versions and ETags belong to one, and a write in one makes nothing stale
// in another.
import { hash } from 'node:crypto';

export interface CachedResponse {
  /**
   * The body as it is sent: encoded once, then hashed for its ETag, written in slices and kept here without another
   * copy. A page's text was encoded three times (its hash, its length, each write), and the text itself stayed on
   * V8's heap while it was kept (test/bench, S1).
   */
  body: Buffer;
  headers: Record<string, string>;
  etag: string;
}

/**
 * What the first answer for a key leaves in the cache: its ETag, all a 304 needs (CONTRACT §10), without the body.
 * The body is kept from the second answer on (the handler's `seen`): a page of 100 cars is ~200 KB, and URLs asked
 * for once (every offset of a listing walked page by page) filled the cache's bytes with bodies nobody asked for
 * again, pushing out those that were (test/bench, S1-20; in Redis, a write of each).
 */
export type CachedTag = Pick<CachedResponse, 'etag'>;

const hasBody = (v: CachedResponse | CachedTag): v is CachedResponse => 'body' in v;

/** Every method is of one car share's cache: its entries and tag versions are nobody else's. */
export interface ResponseCache {
  /** A fresh entry with its body; an entry holding only its ETag (`CachedTag`) is no answer here. */
  get(carShareId: string, key: string): Promise<CachedResponse | undefined>;
  /**
   * The ETag of a fresh entry, without its body: all a 304 needs (CONTRACT §10). In Redis a page's entry is some
   * hundred kilobytes to fetch and parse; its ETag a few dozen bytes. `tags` are the route's (its entry's) tags.
   * `heard`: the request has passed the listening connection's barrier, sent after it arrived, so every bump
   * announced before it is known here (an instance's memo of what Redis holds may answer: `./etag-memo.ts`).
   */
  etagOf(
    carShareId: string,
    key: string,
    tags: readonly string[],
    heard?: boolean,
  ): Promise<string | undefined>;
  /**
   * The tags' versions, taken before the GraphQL runs: a mutation that commits meanwhile bumps them, so
   * the entry stored with the older versions is never served. Reads in flight are shared by these too (handler.ts).
   */
  versions(carShareId: string, tags: readonly string[]): Promise<Record<string, number>>;
  set(
    carShareId: string,
    key: string,
    value: CachedResponse | CachedTag,
    versions: Record<string, number>,
    ttlSeconds: number,
  ): Promise<void>;
  /** Makes every entry of the car share tagged with any of these resource types stale. */
  invalidate(carShareId: string, tags: readonly string[]): Promise<void>;
}

/**
 * Names of Redis keys (src/http/redis-keys.ts hands over its builder): every key begins with the deployment's
 * prefix, and one car share's continue with its Id (CONTRACT §20).
 */
export interface RedisKeyNames {
  deployment(name: string): string;
  carShare(carShareId: string, name: string): string;
}

/** A digest of a string, for keys (the one-shot hash: the same digest as a Hash object's, without building one). */
export const digestOf = (text: string): string => hash('sha256', text, 'base64url').slice(0, 32);

/**
 * The strong ETag of a car share's representation. The car share's Id goes into it: two car shares giving the
 * same answer give different ETags, so an If-None-Match from one never matches at another (CONTRACT §20).
 */
export const etagOf = (body: Buffer | string, carShareId: string): string =>
  `"${digestOf(`${carShareId}:${hash('sha256', body, 'base64url')}`)}"`;

/**
 * A bounded memo for per-request work keyed by a string (the caller's hash, the normalised request, a route's
 * match): a 304 is mostly these, and the same callers ask for the same URLs again and again. Emptied when full.
 */
export function memoKeys<V>(make: (input: string) => V, max = 10_000): (input: string) => V {
  const known = new Map<string, V>();
  return (input) => {
    let out = known.get(input);
    if (out === undefined) {
      out = make(input);
      if (known.size >= max) known.clear();
      known.set(input, out);
    }
    return out;
  };
}

/**
 * Whether a key was given before (then true), remembering it (then false): a bounded set, emptied when full, so a
 * flood of keys asked for once costs about a megabyte (8,192 keys of ~100 characters) and, at worst, makes a
 * repeated key's body wait for one more answer.
 */
export function seenBefore(max = 8_192): (key: string) => boolean {
  const keys = new Set<string>();
  return (key) => {
    if (keys.has(key)) return true;
    if (keys.size >= max) keys.clear();
    keys.add(key);
    return false;
  };
}

/** RFC 9110 §13.1.2: `*`, or a list of entity tags compared weakly (`W/` ignored). */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  // A client revalidating sends back the tag it was given: the common case needs no parsing.
  if (header === etag) return true;
  if (header.trim() === '*') return true;
  const opaque = (t: string): string => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => opaque(t) === opaque(etag));
}

/** An entry in memory: its tag versions as pairs, checked on every hit without building them again. */
interface Held {
  value: CachedResponse | CachedTag;
  pairs: readonly (readonly [string, number])[];
  expires: number;
}

/**
 * In one process: entries and tag versions in memory, bounded in number and in bytes (least recently stored
 * leaves first). The byte bound matters: a 100-car page with its embeds is about 200 KB, so 5,000 of them
 * would hold a gigabyte (test/bench, S1). The bounds are small on purpose: whatever the cache holds is live in
 * V8's old generation, which the service lets grow by half of what is live before collecting (package.json
 * `start`), so every cached megabyte costs about one and a half in resident memory. 5,000 entries and 32 MB
 * kept 20 MB more resident under S1 after S2's unique URLs had filled it (test/bench, 2026-11-26).
 */
export function memoryCache(
  opts: { max?: number; maxBytes?: number; maxVersions?: number; now?: () => number } = {},
): ResponseCache {
  const max = opts.max ?? 1000;
  const maxBytes = opts.maxBytes ?? 12 * 1024 * 1024;
  const maxVersions = opts.maxVersions ?? 100_000;
  const now = opts.now ?? Date.now;
  // Entries and versions are keyed by car share and key (or tag), joined by a newline no key or Id holds.
  const entries = new Map<string, Held>();
  const versions = new Map<string, number>();
  // A bump takes the next number of one counter rather than the tag's own next: a version, once forgotten (the map
  // is bounded: a tag per resource type and car share), is never handed out again to make an old entry look fresh.
  let bumps = 0;
  let bytes = 0;
  const versionOf = (carShareId: string, tag: string) => versions.get(`${carShareId}\n${tag}`) ?? 0;
  const sizeOf = (key: string, s: Held) =>
    2 * key.length + (hasBody(s.value) ? s.value.body.length : 0) + 256;
  const remove = (key: string) => {
    const s = entries.get(key);
    if (!s) return;
    bytes -= sizeOf(key, s);
    entries.delete(key);
  };
  const freshOf = (carShareId: string, k: string) => {
    const key = `${carShareId}\n${k}`;
    const s = entries.get(key);
    if (!s) return undefined;
    const fresh = s.expires > now() && s.pairs.every(([t, v]) => versionOf(carShareId, t) === v);
    if (!fresh) remove(key);
    return fresh ? s.value : undefined;
  };
  return {
    async get(carShareId, k) {
      const v = freshOf(carShareId, k);
      return v && hasBody(v) ? v : undefined;
    },
    async etagOf(carShareId, k) {
      return freshOf(carShareId, k)?.etag;
    },
    async versions(carShareId, tags) {
      return Object.fromEntries(tags.map((t) => [t, versionOf(carShareId, t)]));
    },
    async set(carShareId, k, value, tagVersions, ttl) {
      const key = `${carShareId}\n${k}`;
      const stored: Held = { value, pairs: Object.entries(tagVersions), expires: now() + ttl * 1000 };
      // Already stale (a write bumped a tag while it was computed): not kept, where it could only push out a fresher one.
      if (!stored.pairs.every(([t, v]) => versionOf(carShareId, t) === v)) return;
      const size = sizeOf(key, stored);
      // An answer bigger than an eighth of the budget would push out everything else: not kept.
      if (size > maxBytes / 8) return;
      remove(key);
      while (entries.size > 0 && (entries.size >= max || bytes + size > maxBytes))
        remove(entries.keys().next().value!);
      entries.set(key, stored);
      bytes += size;
    },
    async invalidate(carShareId, tags) {
      // Full: forgotten versions would read 0 again, which entries stored before any bump hold; they go too.
      if (versions.size + tags.length > maxVersions) {
        versions.clear();
        entries.clear();
        bytes = 0;
      }
      for (const t of tags) versions.set(`${carShareId}\n${t}`, ++bumps);
    },
  };
}
