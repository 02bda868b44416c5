// The ETags of the REST cache's Redis entries as this instance last read them, so that a client polling a page is
// answered its 304 without a Redis round trip (CONTRACT §10; bench S3 with REDIS_URL, where the ETag's read was
// half of the Redis work of each 304). Redis stays the authority: a memo holds only what Redis answered, and is
// trusted only while no tag it was read under has been bumped since. Bumps are made here for this instance's own
// writes and heard from every other instance's (their announcements, src/app.ts): the service waits, before any
// request is answered, until every announcement committed before the request arrived has been heard (the listening
// connection's barrier, src/carshares/registry.ts `settled`), so a write answered anywhere is never followed by a
// 304 from before it. While announcements cannot be heard, nothing is memoized.

/** The moment a Redis read began: the tags' epochs then, and how many times every memo had gone. */
export interface Reading {
  epochs: readonly (readonly [string, number])[];
  cleared: number;
}

/** What an instance memoizes of each Redis entry: its ETag, under the tag epochs of the moment its read began. */
interface Memo {
  etag: string;
  epochs: Reading['epochs'];
  /** The Redis entry's own expiry (epoch milliseconds): the memo is not older than what it stands for. */
  expiresAt: number;
}

export interface EtagMemo {
  /** True while every other instance's bump reaches this one; otherwise `get` finds nothing and `put` keeps nothing. */
  usable(): boolean;
  /** The ETag last read for the entry, when no tag it was read under has been bumped since and it has not expired. */
  get(carShareId: string, key: string, now: number): string | undefined;
  /** Taken before the Redis read whose answer is then `put`, so that a bump (or a `clear`) meanwhile voids it. */
  reading(carShareId: string, tags: readonly string[]): Reading;
  put(carShareId: string, key: string, read: Reading, etag: string, expiresAt: number): void;
  /** The car share's tags were bumped (here, or on another instance). */
  bumped(carShareId: string, tags: readonly string[]): void;
  /** Anything may have changed (the announcements were not heard for a while): every memo goes. */
  clear(): void;
}

export function etagMemo(usable: () => boolean, opts: { max?: number; maxEpochs?: number } = {}): EtagMemo {
  const max = opts.max ?? 10_000;
  const maxEpochs = opts.maxEpochs ?? 100_000;
  // By car share, then by key (or tag): no joined string is built for a lookup on the 304 path.
  const memos = new Map<string, Map<string, Memo>>();
  const epochs = new Map<string, Map<string, number>>();
  let memoCount = 0;
  let epochCount = 0;
  // One counter for every bump: an epoch, once forgotten (the map is bounded), is never handed out again.
  let bumps = 0;
  let cleared = 0;
  const current = (carShareId: string, pairs: Reading['epochs']) => {
    const known = epochs.get(carShareId);
    return pairs.every(([t, e]) => (known?.get(t) ?? 0) === e);
  };
  const clear = () => {
    cleared += 1;
    memos.clear();
    epochs.clear();
    memoCount = 0;
    epochCount = 0;
  };
  return {
    usable,
    get(carShareId, key, now) {
      if (!usable()) return undefined;
      const ofCarShare = memos.get(carShareId);
      const m = ofCarShare?.get(key);
      if (m === undefined) return undefined;
      if (m.expiresAt > now && current(carShareId, m.epochs)) return m.etag;
      ofCarShare!.delete(key);
      memoCount -= 1;
      return undefined;
    },
    reading: (carShareId, tags) => {
      const known = epochs.get(carShareId);
      return { epochs: tags.map((t) => [t, known?.get(t) ?? 0] as const), cleared };
    },
    put(carShareId, key, read, etag, expiresAt) {
      if (!usable() || read.cleared !== cleared || !current(carShareId, read.epochs)) return;
      if (memoCount >= max) {
        memos.clear();
        memoCount = 0;
      }
      let ofCarShare = memos.get(carShareId);
      if (!ofCarShare) {
        ofCarShare = new Map();
        memos.set(carShareId, ofCarShare);
      }
      if (!ofCarShare.has(key)) memoCount += 1;
      ofCarShare.set(key, { etag, epochs: read.epochs, expiresAt });
    },
    bumped(carShareId, tags) {
      // Full: a forgotten epoch would read 0 again, which memos taken before any bump hold; they go too.
      if (epochCount + tags.length > maxEpochs) clear();
      let ofCarShare = epochs.get(carShareId);
      if (!ofCarShare) {
        ofCarShare = new Map();
        epochs.set(carShareId, ofCarShare);
      }
      for (const t of tags) {
        if (!ofCarShare.has(t)) epochCount += 1;
        ofCarShare.set(t, ++bumps);
      }
    },
    clear,
  };
}
