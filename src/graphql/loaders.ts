// DataLoader per request, created on first use: each subdomain declares its loaders next to its entities.

import type { EntityClass } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { carShareIdOf } from '../db/car-share-condition.js';
import { placeholders, readRows } from '../db/rows.js';
import type { Read } from '../db/views.js';
import type { Context } from './context.js';

export type LoaderAccessor<K, V> = (ctx: Pick<Context, 'em' | 'loaders'>) => ReadLoader<K, V>;

/**
 * A loader's cache, holding what was primed as values: a promise is made of one only when `load` asks for it. A page
 * primes four embeds per car, most of which its resolvers take with `known`, never as promises.
 */
class PrimedCache<V> {
  readonly values = new Map<string, V>();
  readonly #promises = new Map<string, Promise<V>>();
  has(key: string): boolean {
    return this.values.has(key) || this.#promises.has(key);
  }
  get(key: string): Promise<V> | undefined {
    let p = this.#promises.get(key);
    if (p === undefined && this.values.has(key)) {
      p = Promise.resolve(this.values.get(key)!);
      this.#promises.set(key, p);
    }
    return p;
  }
  set(key: string, promise: Promise<V>): void {
    this.#promises.set(key, promise);
  }
  delete(key: string): void {
    this.values.delete(key);
    this.#promises.delete(key);
  }
  clear(): void {
    this.values.clear();
    this.#promises.clear();
  }
}

/**
 * A request's DataLoader that also gives what was primed into it without a promise (`known`). A page primes its cars'
 * embeds from its own statement (src/cars/car-embeds.ts); its resolvers return them as values, so graphql-jit resolves
 * them in the same turn. A promise per embedded field of every car, and the microtask turns they took, were a share of
 * a page's work and of its garbage (test/bench, S1).
 */
export class ReadLoader<K, V> extends DataLoader<K, V, string> {
  readonly #cache: PrimedCache<V>;
  readonly #keyOf: (k: K) => string;

  constructor(batch: DataLoader.BatchLoadFn<K, V>, keyOf: (k: K) => string) {
    const cache = new PrimedCache<V>();
    super(batch, { cacheKeyFn: keyOf, cacheMap: cache });
    this.#cache = cache;
    this.#keyOf = keyOf;
  }

  /** As DataLoader's: a key already known keeps its value. */
  override prime(key: K, value: V | PromiseLike<V> | Error): this {
    if (value instanceof Error || (typeof value === 'object' && value !== null && 'then' in value))
      return super.prime(key, value);
    const k = this.#keyOf(key);
    if (!this.#cache.has(k)) this.#cache.values.set(k, value);
    return this;
  }

  /** The value primed for `key`, as it is; otherwise what `load` gives. */
  known(key: K): V | Promise<V> {
    const k = this.#keyOf(key);
    const values = this.#cache.values;
    return values.has(k) ? (values.get(k) as V) : this.load(key);
  }
}

export function defineLoader<K, V>(
  name: string,
  batch: (em: EntityManager, keys: readonly K[]) => Promise<V[]>,
  cacheKey: (k: K) => string = (k) => String(k),
): LoaderAccessor<K, V> {
  return (ctx) => {
    let l = ctx.loaders.get(name) as ReadLoader<K, V> | undefined;
    if (!l) {
      l = new ReadLoader<K, V>((keys) => batch(ctx.em, keys), cacheKey);
      ctx.loaders.set(name, l);
    }
    return l;
  };
}

/**
 * Rows of `table` by a unique column (`id`, `user_id`), one statement per batch, as plain rows shaped like the
 * entity (src/db/rows.ts): for reading, never for changing. A key no row has loads as null. A request that read the
 * rows already may prime it with their views (src/db/views.ts).
 */
export function rowsByUniqueKey<T extends object, V extends Read<T> = T>(
  name: string,
  entity: EntityClass<T>,
  table: string,
  column: string,
  keyOf: (row: T) => string,
): LoaderAccessor<string, V | null> {
  // V is T, or Read<T> for a loader that requests may prime with views: the rows read here are T either way.
  return defineLoader<string, V | null>(
    name,
    async (em, keys) =>
      byKey(
        keys,
        await readRows(
          em,
          entity,
          `select * from ${table} where car_share_id = ? and ${column} in (${placeholders(keys.length)})`,
          [carShareIdOf(em), ...keys],
        ),
        keyOf,
        null,
      ) as (V | null)[],
  );
}

/** Orders batch results to match the keys; missing keys get `fallback`. */
export function byKey<K, V, F>(keys: readonly K[], rows: V[], keyOf: (v: V) => K, fallback: F): (V | F)[] {
  const m = new Map<K, V>();
  for (const r of rows) m.set(keyOf(r), r);
  return keys.map((k) => m.get(k) ?? fallback);
}

/** Groups batch results per key (one-to-many), in the rows' order. */
export function groupByKey<K, V>(keys: readonly K[], rows: V[], keyOf: (v: V) => K): V[][] {
  const m = new Map<K, V[]>();
  for (const r of rows) {
    const k = keyOf(r);
    const list = m.get(k);
    if (list) list.push(r);
    else m.set(k, [r]);
  }
  return keys.map((k) => m.get(k) ?? []);
}
