// DataLoader per request, created on first use: each subdomain declares its loaders next to its entities.

import type { EntityClass } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { carShareIdOf } from '../db/car-share-condition.js';
import { placeholders, readRows } from '../db/rows.js';
import type { Read } from '../db/views.js';
import type { Context } from './context.js';

export type LoaderAccessor<K, V> = (ctx: Pick<Context, 'em' | 'loaders'>) => DataLoader<K, V, string>;

export function defineLoader<K, V>(
  name: string,
  batch: (em: EntityManager, keys: readonly K[]) => Promise<V[]>,
  cacheKey: (k: K) => string = (k) => String(k),
): LoaderAccessor<K, V> {
  return (ctx) => {
    let l = ctx.loaders.get(name) as DataLoader<K, V, string> | undefined;
    if (!l) {
      l = new DataLoader<K, V, string>((keys) => batch(ctx.em, keys), { cacheKeyFn: cacheKey });
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
