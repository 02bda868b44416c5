// A short in-memory cache of checked access tokens, cleared the moment a token, grant, account or client
// application stops being valid: the service announces those changes to every instance (NOTIFY carshare_auth,
// sent in the change's transaction: revocation.ts). Before a cached answer is used, one protocol Sync on the
// listening connection (no SQL statement: see sync.barrier.ts) makes sure every announcement committed earlier has
// arrived, so a revocation is seen at once, on every instance; callers share it. The service hears the
// announcements on its one listening connection, whose barrier the car share registry shares (`heardBy`, `heard`:
// src/service.ts); `listen` opens a connection of its own. While the announcements cannot be heard, nothing is
// cached. Entries are kept per car share and token: a token checked in one car share is never an answer in another
// (CONTRACT §21). Announced ids are unique across the deployment, so an announcement drops its
// entries in whichever car share holds them.
import pg from 'pg';
import type { Logger } from '../shared/log.js';
import type { Actor } from './actor.js';
import { coalescedPerTurn, syncBarrier } from './sync.barrier.js';

export interface CachedToken {
  actor: Actor;
  /** Token expiry, epoch seconds. */
  exp: number;
  clientId: string;
  grantId?: string | undefined;
  accountId?: string | undefined;
}

interface Entry extends CachedToken {
  until: number;
  /** The stored id (hash) of the token, which `token:` announcements name. */
  token: string;
}

const keyOf = (carShareId: string, token: string) => `${carShareId}\n${token}`;

export const CHANNEL = 'carshare_auth';

const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;
const RECONNECT_MS = 1_000;

export class TokenCache {
  readonly #entries = new Map<string, Entry>();
  /** Bumped by every invalidation, so a lookup that raced one is not cached. */
  #generation = 0;
  /** The listening connection's barrier, one per turn; undefined while not listening (then nothing is cached). */
  #barrier: (() => Promise<void>) | undefined;

  get generation(): number {
    return this.#generation;
  }

  get(carShareId: string, token: string, nowMs: number): CachedToken | undefined {
    const key = keyOf(carShareId, token);
    const e = this.#entries.get(key);
    if (!e) return undefined;
    if (!this.#barrier || e.until <= nowMs || e.exp * 1000 <= nowMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return e;
  }

  /**
   * A cached answer, once every invalidation committed before this call has been heard (`heard`: the caller's
   * request already waited for a barrier sent after it arrived, src/access/authenticate.ts).
   */
  async lookup(
    carShareId: string,
    token: string,
    nowMs: () => number,
    heard = false,
  ): Promise<CachedToken | undefined> {
    if (!this.#entries.has(keyOf(carShareId, token))) return undefined;
    if (!heard)
      try {
        await this.#sync();
      } catch {
        return undefined;
      }
    return this.get(carShareId, token, nowMs());
  }

  /**
   * True once every invalidation committed before this call has been heard (at once when `heard`: the request
   * already passed a barrier); false while the announcements cannot be heard.
   */
  async caughtUp(heard = false): Promise<boolean> {
    if (heard) return this.#barrier !== undefined;
    try {
      await this.#sync();
      return true;
    } catch {
      return false;
    }
  }

  #sync(): Promise<void> {
    if (!this.#barrier) return Promise.reject(new Error('not listening'));
    return this.#barrier();
  }

  set(carShareId: string, token: string, value: CachedToken, generation: number, nowMs: number): void {
    if (!this.#barrier || generation !== this.#generation) return;
    const key = keyOf(carShareId, token);
    if (this.#entries.size >= MAX_ENTRIES) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(key, { ...value, token, until: Math.min(nowMs + TTL_MS, value.exp * 1000) });
  }

  /** `token:<hash>`, `grant:<id>`, `account:<id>` or `client:<client id>`, in every car share. */
  forget(what: string): void {
    this.#generation += 1;
    const sep = what.indexOf(':');
    const kind = what.slice(0, sep);
    const id = what.slice(sep + 1);
    for (const [key, e] of this.#entries) {
      const hit =
        (kind === 'token' && e.token === id) ||
        (kind === 'grant' && e.grantId === id) ||
        (kind === 'account' && e.accountId === id) ||
        (kind === 'client' && e.clientId === id);
      if (hit) this.#entries.delete(key);
    }
  }

  clear(): void {
    this.#generation += 1;
    this.#entries.clear();
  }

  /**
   * Hears invalidations through a listening connection of the caller's (LISTEN carshare_auth, each NOTIFY handed
   * to `heard`): `barrier` is that connection's, coalesced per turn, and rejects while it is not listening.
   */
  heardBy(barrier: () => Promise<void>): void {
    this.#barrier = barrier;
    this.clear();
  }

  /**
   * A NOTIFY on `CHANNEL` (`forget` its payload), or none after the connection (re)opened: anything may have
   * changed.
   */
  heard(payload?: string): void {
    if (payload) this.forget(payload);
    else this.clear();
  }

  /** Listens for invalidations on a dedicated connection, reconnecting until closed. */
  async listen(databaseUrl: string, log: Logger): Promise<() => Promise<void>> {
    let client: pg.Client | undefined;
    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    const lost = (err: unknown) => {
      this.#barrier = undefined;
      this.clear();
      if (closed) return;
      log.warn({ err }, 'token cache: no invalidation channel; caching paused until it is back');
      timer = setTimeout(() => void connect(), RECONNECT_MS);
      timer.unref();
    };
    const connect = async (): Promise<void> => {
      const c = new pg.Client({ connectionString: databaseUrl });
      c.on('notification', (n) => {
        if (n.channel === CHANNEL && n.payload) this.forget(n.payload);
      });
      c.once('error', (err) => {
        void c.end().catch(() => undefined);
        lost(err);
      });
      try {
        await c.connect();
        await c.query(`listen ${CHANNEL}`);
      } catch (err) {
        c.removeAllListeners('error');
        void c.end().catch(() => undefined);
        return lost(err);
      }
      client = c;
      if (!closed) this.#barrier = coalescedPerTurn(() => syncBarrier(c));
      this.clear();
    };
    await connect();
    return async () => {
      closed = true;
      this.#barrier = undefined;
      this.clear();
      if (timer) clearTimeout(timer);
      await client?.end().catch(() => undefined);
    };
  }
}
