// Plain rows for reads: SQL results mapped to an entity's property names and JavaScript values exactly as
// hydration would map them, but with no entity instance, no identity map and no change tracking. Reads are the
// hot path (a 100-car page is ~500 rows); entities stay for commands, which change and flush them.
import type { EntityClass, EntityMetadata } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

type Row = Record<string, unknown>;
type Mapper = (row: Row) => Row;

const mappers = new WeakMap<EntityMetadata, Mapper>();

/** Column names to property names and dates (MikroORM's compiled result mapper), then custom types. */
function mapperFor(em: EntityManager, meta: EntityMetadata): Mapper {
  const known = mappers.get(meta);
  if (known) return known;
  const comparator = em.getComparator();
  const platform = em.getPlatform();
  // The same conversions the hydrator applies: a custom type's JavaScript value (decimals), booleans as booleans.
  const custom = meta.props.filter((p) => p.customType);
  const booleans = meta.props.filter((p) => !p.customType && p.runtimeType === 'boolean');
  const mapper: Mapper = (row) => {
    const data = comparator.mapResult(meta, row) as Row;
    for (const p of custom) {
      const v = data[p.name];
      if (v !== null && v !== undefined) data[p.name] = p.customType!.convertToJSValue(v, platform);
    }
    for (const p of booleans) {
      const v = data[p.name];
      if (v !== null && v !== undefined) data[p.name] = !!v;
    }
    return data;
  };
  mappers.set(meta, mapper);
  return mapper;
}

/** Maps raw rows of `entity`'s table to plain objects shaped like the entity. */
export function plainRows<T extends object>(em: EntityManager, entity: EntityClass<T>, rows: Row[]): T[] {
  const map = mapperFor(em, em.getMetadata().get(entity) as EntityMetadata);
  return rows.map((r) => map(r) as T);
}

/** Runs one read statement (in the request's transaction, if any) and returns plain objects. */
export async function readRows<T extends object>(
  em: EntityManager,
  entity: EntityClass<T>,
  sql: string,
  params: readonly unknown[],
): Promise<T[]> {
  const rows = await em.getConnection().execute<Row[]>(sql, [...params], 'all', em.getTransactionContext());
  return plainRows(em, entity, rows);
}

/** `?, ?, ?` for an `in (…)` list of `n` values. */
export const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');
