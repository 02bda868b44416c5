// Plain rows for reads: SQL results mapped to an entity's property names and JavaScript values exactly as
// hydration would map them, but with no entity instance, no identity map and no change tracking. Reads are the
// hot path (a 100-car page is ~500 rows); entities stay for commands, which change and flush them.
import { createHash } from 'node:crypto';
import type { EntityClass, EntityMetadata } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Pool, QueryResultRow } from 'pg';
import { CAR_SHARE_SETTING } from './scope.js';
import { ScopedStatement } from './scoped-statement.js';

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
    // Every column, the car share's too (`carShareId`, src/db/car-share-condition.ts), maps to its property.
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
  return plainRows(em, entity, await runRead<Row>(em, sql, params));
}

/** Statements with at most this many parameters are prepared once per connection (a car, a profile). */
const PREPARED_MAX = 8;
const numbered = new Map<string, { text: string; name: string }>();

/** `?` placeholders as `$1, $2…`, and a statement name derived from the text (PostgreSQL keeps 63 bytes). */
function statement(sql: string): { text: string; name: string } {
  let s = numbered.get(sql);
  if (!s) {
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${++n}`);
    s = { text, name: `r_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}` };
    if (numbered.size >= 5000) numbered.clear();
    numbered.set(sql, s);
  }
  return s;
}

/**
 * A read statement with `?` placeholders. Inside a transaction it runs there, through MikroORM. Otherwise it goes
 * straight to MikroORM's own pg pool with bound parameters, short ones as prepared statements: no query text is
 * built by inlining values, and PostgreSQL plans a repeated lookup once per connection (test/bench, S2).
 */
export async function runRead<R>(em: EntityManager, given: string, params: readonly unknown[]): Promise<R[]> {
  const trx = em.getTransactionContext();
  const connection = em.getConnection();
  if (trx) return connection.execute<R[]>(given, [...params], 'all', trx);
  // A car share's read runs in a transaction of its scope (src/db/scope.ts), prepared there too.
  if (em.getSessionContext()) return scopedRead<R>(em, given, params);
  // The statement hook (tests count statements with it) sees every read, as it does MikroORM's own, and what it
  // hands back runs, as with MikroORM's (src/db/orm.ts).
  const sql = em.config.get('onQuery')?.(given, [...params]) ?? given;
  const pool = (await connection.getNativeClient()) as Pool;
  const { text, name } = statement(sql);
  const values = [...params];
  if (params.length > PREPARED_MAX || unprepared.has(name))
    return (await pool.query<R & QueryResultRow>({ text, values })).rows;
  try {
    return (await pool.query<R & QueryResultRow>({ name, text, values })).rows;
  } catch (err) {
    // A migration changed the table under a prepared `select *` ("cached plan must not change result type"):
    // that statement is no longer prepared, on any connection, and this read runs again unprepared.
    if ((err as { code?: string }).code !== '0A000') throw err;
    unprepared.add(name);
    return (await pool.query<R & QueryResultRow>({ text, values })).rows;
  }
}

/**
 * A statement of a transaction's hot path as a named prepared statement on the transaction's connection: a long
 * one (a check-and-insert) is then parsed and planned once per connection instead of once per call, which is
 * most of its PostgreSQL cost (test/bench, S5). MikroORM would inline its values into the text; the pg query
 * config (name, text) reaches `pg` through Kysely's connection unchanged. Outside a transaction it runs on the
 * pool, prepared too. Only for statements whose result columns cannot change under them (no `select *`).
 */
export async function runPrepared<R>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[],
): Promise<R[]> {
  const trx = em.getTransactionContext<PreparedExecutor>();
  if (!trx && em.getSessionContext()) return scopedRead<R>(em, sql, params);
  em.config.get('onQuery')?.(sql, [...params]);
  const { text, name } = statement(sql);
  if (!trx) {
    const pool = (await em.getConnection().getNativeClient()) as Pool;
    return (await pool.query<R & QueryResultRow>({ name, text, values: [...params] })).rows;
  }
  // A fresh config per call: pg keeps the values on it.
  const res = await trx.executeQuery({
    sql: { name, text },
    parameters: [...params],
    query: { kind: 'RawNode', sqlFragments: [text], parameters: [] },
    queryId: { queryId: name },
  });
  return res.rows as R[];
}

/** What a Kysely transaction offers for a compiled query; its Postgres connection hands `sql` to pg as is. */
interface PreparedExecutor {
  executeQuery(q: {
    sql: { name: string; text: string };
    parameters: unknown[];
    query: { kind: 'RawNode'; sqlFragments: string[]; parameters: unknown[] };
    queryId: { queryId: string };
  }): Promise<{ rows: unknown[] }>;
}

/** The role and car share of an EntityManager scoped by `carShareEm` (none for one scoped without a role). */
function sessionScope(em: EntityManager): { role: string; carShareId: string } | undefined {
  const ctx = em.getSessionContext() as { role?: string; variables?: Record<string, unknown> } | undefined;
  const carShareId = ctx?.variables?.[CAR_SHARE_SETTING];
  return ctx?.role && typeof carShareId === 'string' ? { role: ctx.role, carShareId } : undefined;
}

/**
 * A statement of a scoped EntityManager outside a transaction: the scope's settings and the statement in one round
 * trip, one implicit transaction (src/db/scoped-statement.ts), prepared when it can be. An EntityManager scoped
 * without a role (a tool's) takes a short transaction of its scope through MikroORM instead.
 */
async function scopedRead<R>(em: EntityManager, sql: string, params: readonly unknown[]): Promise<R[]> {
  const scope = sessionScope(em);
  if (!scope)
    return em.transactional((tem) =>
      tem.getConnection().execute<R[]>(sql, [...params], 'all', tem.getTransactionContext()),
    );
  return runScoped<R>(em, scope, sql, params);
}

/**
 * One statement (`?` placeholders, scalar values) as `scope.role` with `carshare.car_share_id` set for it alone
 * (empty: no car share, the deployment's own work), in one round trip; prepared when `prepare` and short.
 */
export async function runScoped<R>(
  em: EntityManager,
  scope: { role: string; carShareId: string },
  sql: string,
  params: readonly unknown[],
  prepare = true,
): Promise<R[]> {
  // The statement hook (tests count statements with it) sees the statement, not the scope's settings.
  const hooked = em.config.get('onQuery')?.(sql, [...params]) ?? sql;
  const { text, name } = statement(hooked);
  const named = prepare && params.length <= PREPARED_MAX && !unprepared.has(name);
  const pool = (await em.getConnection().getNativeClient()) as Pool;
  const once = async (asNamed: boolean): Promise<R[]> => {
    const client = await pool.connect();
    // A name of its own: pg tracks the names it prepares itself (a transaction's `runPrepared`), this path its own
    // (src/db/scoped-statement.ts); one name prepared by both on one connection would be parsed twice.
    const q = new ScopedStatement({ ...scope, text, name: asNamed ? `s${name}` : undefined, values: params });
    try {
      client.query(q as never);
      const rows = (await q.result).rows as R[];
      client.release();
      return rows;
    } catch (err) {
      // As pg's pool does: a connection that answered an error is not given out again.
      client.release(err as Error);
      throw err;
    }
  };
  if (!named) return once(false);
  try {
    return await once(true);
  } catch (err) {
    // As on the pool (runRead): a migration changed the table under a prepared `select *`.
    if ((err as { code?: string }).code !== '0A000') throw err;
    unprepared.add(name);
    return once(false);
  }
}

/** Statements that stopped being preparable while the process ran. */
const unprepared = new Set<string>();

/** `?, ?, ?` for an `in (…)` list of `n` values. */
export const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

/**
 * Any statement (`?` placeholders) in the EntityManager's transaction, or, for one scoped to a car share and in
 * none, in a short transaction of its scope (src/db/scope.ts): MikroORM wraps its own statements so, not a raw
 * `getConnection().execute`, which would run as the DATABASE_URL user. Returns the rows (or none).
 */
export function runSql<R>(em: EntityManager, sql: string, params: readonly unknown[] = []): Promise<R[]> {
  const trx = em.getTransactionContext();
  if (trx || !em.getSessionContext()) return em.getConnection().execute<R[]>(sql, [...params], 'all', trx);
  // One statement is atomic on its own: its scope and it in one round trip, unless MikroORM has to expand a list
  // (`in (?)` with an array).
  const scope = sessionScope(em);
  if (scope && !params.some(Array.isArray)) return runScoped<R>(em, scope, sql, params, false);
  return em.transactional((tem) =>
    tem.getConnection().execute<R[]>(sql, [...params], 'all', tem.getTransactionContext()),
  );
}
