// Read views: an entity's row as a read answers it, built by PostgreSQL. The row's keys are the property names,
// timestamps are ISO 8601 text to the millisecond (what the DateTime scalar writes), decimals are their JavaScript
// value: a read takes pg's row as it comes, with no mapped copy (plainRows), no `Date` per timestamp and no
// `toISOString` later. On a 100-car page that copy, those dates and their text were a fifth of the process's work
// and much of its garbage (test/bench, S1; issue 30). Entities, and plain rows, stay for commands and for reads
// that compute with dates.
import type { EntityClass, EntityMetadata, EntityProperty } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A view of `T`: its properties but its car share's, with every timestamp as ISO 8601 text
 * (`2026-07-03T12:00:00.000Z`).
 */
export type View<T> = { [K in Exclude<keyof T, 'carShareId'>]: Text<T[K]> };
type Text<V> = V extends Date ? string : V;

/** What a loader read for answering holds: the entity's plain row or its view; the DateTime scalar writes either. */
export type Read<T> = T | View<T>;

/**
 * `to_char` truncates to the millisecond, as pg's date parser does (postgres-date): a stored `12:00:00.1239` reads
 * `12:00:00.123Z` either way.
 */
const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** Column types whose values pg (and JSON) give as their JavaScript values. */
const AS_THEY_ARE =
  /^(jsonb?|uuid|text|varchar|character varying|double precision|float8|real|float4|int|int4|integer|smallint|int2|boolean|bool)\b/;

/** A property's value as its view holds it: an SQL expression over `alias`. */
function viewValue(meta: EntityMetadata, p: EntityProperty, alias: string): string {
  const column = `${alias}.${p.fieldNames[0]}`;
  const type = (p.columnTypes?.[0] ?? '').toLowerCase();
  // Every timestamp column is a timestamptz (the migrations): written as UTC's wall clock whatever the session's zone.
  if (type.startsWith('timestamp')) return `to_char(${column} at time zone 'UTC', ${ISO})`;
  if (/^(numeric|decimal)\b/.test(type))
    // The decimal's JavaScript type: a string keeps its scale (`12.50`), a number is PostgreSQL's float8 (the
    // closest double, as parseFloat of its text would give).
    return p.runtimeType === 'number' ? `${column}::float8` : `${column}::text`;
  if (/^(bigint|int8)\b/.test(type)) return `${column}::text`;
  // A custom type is converted when an entity is loaded; these arrive as their JavaScript values already.
  if (p.customType && !AS_THEY_ARE.test(type))
    throw new Error(`views: ${meta.className}.${p.name} (${type}) has no view`);
  return column;
}

/**
 * The properties a view holds: every persisted one but the car share's. A read is of the request's car share, whose
 * id on every car, rating, verification and profile was an eighth of a page's JSON.
 */
const persisted = (meta: EntityMetadata): EntityProperty[] =>
  meta.props.filter((p) => p.persist !== false && p.fieldNames?.length === 1 && p.name !== 'carShareId');

const jsonOfViews = new Map<string, string>();

/**
 * `entity`'s view over `alias` as one `json` object, for a statement that returns the rows of several tables as a
 * few columns (a car with its embeds): a few values to receive instead of some 30 columns. json, not jsonb:
 * PostgreSQL writes it out as it builds it.
 */
export function viewJson(em: EntityManager, entity: EntityClass<object>, alias: string): string {
  const meta = em.getMetadata().get(entity) as EntityMetadata;
  const key = `${meta.className}\n${alias}`;
  let sql = jsonOfViews.get(key);
  if (sql === undefined) {
    const pairs = persisted(meta).map((p) => `'${p.name}', ${viewValue(meta, p, alias)}`);
    // PostgreSQL takes at most 100 arguments to a function: 50 properties.
    if (pairs.length > 50) throw new Error(`views: ${meta.className} has more than 50 columns`);
    sql = `json_build_object(${pairs.join(', ')})`;
    jsonOfViews.set(key, sql);
  }
  return sql;
}
