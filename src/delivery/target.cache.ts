// The delivery workers' cache of subscription targets (URL, decrypted secrets, status), so a batch of
// deliveries costs no subscription reads. Every change of those columns is announced in its transaction
// (carshare_webhook_subscription, webhooks/subscription.announce.ts); before cached entries are used, a round-trip
// on the listening connection makes sure every change committed earlier has been heard, as the token cache does.
// While the announcements cannot be heard, nothing is cached.
import type { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../db/rows.js';
import { scopeOf } from '../webhooks/webhook.scope.js';

export { SUBSCRIPTION_CHANNEL } from '../webhooks/subscription.announce.js';

const MAX_ENTRIES = 10_000;

export interface Target {
  url: string;
  /** Plain `whsec_` secrets, newest first; the previous one only while its overlap lasts. */
  secrets: string[];
  isActive: boolean;
  deleted: boolean;
}

interface Entry {
  url: string;
  secret: string | null;
  previous: { secret: string; untilMs: number } | null;
  isActive: boolean;
  deleted: boolean;
}

interface Row {
  id: string;
  url: string;
  secret: string | null;
  previous_secret: string | null;
  previous_secret_expires_date_utc: Date | null;
  is_active: boolean;
  deleted_date_utc: Date | null;
}

/** The decryption of the secrets of the car share `em` is scoped to (its own data key). */
export type Decrypt = (em: EntityManager) => Promise<(blob: string, subscriptionId: string) => string>;

function targetOf(e: Entry, nowMs: number): Target {
  const secrets = e.secret ? [e.secret] : [];
  if (e.previous && e.previous.untilMs > nowMs) secrets.push(e.previous.secret);
  return { url: e.url, secrets, isActive: e.isActive, deleted: e.deleted };
}

/** Entries are keyed by subscription Id (unique across the deployment); each is read in its car share's scope. */
export class TargetCache {
  readonly #entries = new Map<string, Entry>();
  readonly #decrypt: Decrypt;
  /** Resolves once every change committed before the call has been heard; rejects while not listening. */
  readonly #sync: () => Promise<void>;
  /** Bumped by every invalidation, so a read that raced one is not cached. */
  #generation = 0;

  constructor(decrypt: Decrypt, sync: () => Promise<void>) {
    this.#decrypt = decrypt;
    this.#sync = sync;
  }

  /** A subscription changed (its id), or, without an id, anything may have (the listener reconnected). */
  forget(id?: string): void {
    this.#generation += 1;
    if (id) this.#entries.delete(id);
    else this.#entries.clear();
  }

  /** A cached target as the cache now has it; undefined when not cached (forgotten since, say). */
  cached(id: string, now: Date): Target | undefined {
    const e = this.#entries.get(id);
    return e && targetOf(e, now.getTime());
  }

  /**
   * The targets of these subscriptions of the car share `em` is scoped to (absent: no such subscription there),
   * reading only those not cached.
   */
  async get(em: EntityManager, ids: readonly string[], now: Date): Promise<Map<string, Target>> {
    const unique = [...new Set(ids)];
    let cacheable = true;
    if (unique.some((id) => this.#entries.has(id)))
      await this.#sync().catch(() => {
        cacheable = false;
        this.forget();
      });
    const generation = this.#generation;
    const out = new Map<string, Target>();
    const missing = unique.filter((id) => !this.#entries.has(id));
    const rows = missing.length > 0 ? await this.#load(em, missing) : [];
    const decrypt = rows.length > 0 ? await this.#decrypt(em) : () => '';
    const keep = cacheable && generation === this.#generation;
    for (const r of rows) {
      const e: Entry = {
        url: r.url,
        secret: r.secret ? decrypt(r.secret, r.id) : null,
        previous:
          r.previous_secret && r.previous_secret_expires_date_utc
            ? {
                secret: decrypt(r.previous_secret, r.id),
                untilMs: new Date(r.previous_secret_expires_date_utc).getTime(),
              }
            : null,
        isActive: r.is_active,
        deleted: r.deleted_date_utc !== null,
      };
      out.set(r.id, targetOf(e, now.getTime()));
      if (keep) this.#remember(r.id, e);
    }
    for (const id of unique) {
      const e = this.#entries.get(id);
      if (e && !out.has(id)) out.set(id, targetOf(e, now.getTime()));
    }
    return out;
  }

  #remember(id: string, e: Entry): void {
    if (this.#entries.size >= MAX_ENTRIES) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(id, e);
  }

  #load(em: EntityManager, ids: string[]): Promise<Row[]> {
    return runSql<Row>(
      em,
      `select "id", "url", "secret", "previous_secret", "previous_secret_expires_date_utc", "is_active",
        "deleted_date_utc" from "webhook_subscription"
        where "car_share_id" = ? and "id" = any(?::uuid[])`,
      // An array compared as such: linear whatever plan the statistics of a freshly filled table give (a set
      // from jsonb_array_elements was parsed again per row scanned: 55 ms for 128 of 1,000 subscriptions).
      [scopeOf(em), `{${ids.join(',')}}`],
    );
  }
}
