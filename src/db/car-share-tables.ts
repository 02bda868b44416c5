// Which tables hold car share data, read from the catalog (CONTRACT §24 rule 1): every table with a car_share_id
// column, never a hand-kept list, so a table added later is granted and checked without anyone remembering it.
import type pg from 'pg';

/** What ensureAppRole and the start-up check need: one connection (a pg.Client; ensureAppRole runs a transaction). */
export type Sql = Pick<pg.ClientBase, 'query'>;

/** The role car share work runs as unless DATABASE_APP_ROLE says otherwise. */
export const DEFAULT_APP_ROLE = 'carshare_app';

/** A role name we put in SQL: quoted anyway, but kept to plain identifiers so messages and grants stay readable. */
export const ROLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The registry of car shares: no car_share_id of its own, its policy compares `id`. */
export const CAR_SHARE_TABLE = 'car_share';

export interface CarShareTable {
  oid: number;
  /** As regclass prints it: quoted when it must be, schema-qualified outside the search path. */
  name: string;
}

/** Ordinary and partitioned tables outside the system schemas with a live car_share_id column, by name. */
export async function carShareTables(sql: Sql): Promise<CarShareTable[]> {
  const { rows } = await sql.query<{ oid: number; name: string }>(
    `select c.oid, c.oid::regclass::text as name
       from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid and a.attname = 'car_share_id' and not a.attisdropped
      where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema')
        and n.nspname not like 'pg\\_toast%'
      order by 2`,
  );
  return rows;
}

/** The car_share table, if the migrations have made it. */
export async function carShareTable(sql: Sql): Promise<CarShareTable | undefined> {
  const { rows } = await sql.query<{ oid: number | null; name: string }>(
    `select to_regclass($1)::oid as oid, to_regclass($1)::text as name`,
    [CAR_SHARE_TABLE],
  );
  const r = rows[0];
  return r?.oid ? { oid: r.oid, name: r.name } : undefined;
}

/** A name as SQL writes it, double-quoted. */
export const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;
