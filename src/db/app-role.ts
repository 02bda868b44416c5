// DATABASE_APP_ROLE (CONTRACT §24 rule 4), made and granted after the migrations at every start: the role car share
// work runs as, which no policy lets past its car share. NOSUPERUSER NOBYPASSRLS, owning nothing, with
// select/insert/update/delete on every table the catalog shows with a car_share_id and select alone on car_share.
// A start with everything in place writes nothing.
import { carShareTable, carShareTables, quoteIdent, ROLE_NAME, type Sql } from './car-share-tables.js';
import { MIGRATION_LOCK_KEY } from './migrate.js';

/** SQLSTATEs of a role created at the same moment by another start (another database of the cluster, maybe). */
const ALREADY_THERE = new Set(['42710', '23505']);

export async function ensureAppRole(sql: Sql, role: string): Promise<void> {
  if (!ROLE_NAME.test(role)) throw new Error(`DATABASE_APP_ROLE ${JSON.stringify(role)} is not a role name`);
  const r = quoteIdent(role);
  await createRole(sql, role);
  await actAs(sql, role);

  // One start at a time per database grants (concurrent GRANTs on one table fail with "tuple concurrently updated").
  await sql.query('begin');
  try {
    await sql.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    const tables = await carShareTables(sql);
    const { rows: missing } = await sql.query<{ name: string }>(
      `select t::regclass::text as name from unnest($1::oid[]) t
        where not (has_table_privilege($2, t, 'SELECT') and has_table_privilege($2, t, 'INSERT')
          and has_table_privilege($2, t, 'UPDATE') and has_table_privilege($2, t, 'DELETE'))`,
      [tables.map((t) => t.oid), role],
    );
    if (missing.length > 0)
      await sql.query(
        `grant select, insert, update, delete on table ${missing.map((t) => t.name).join(', ')} to ${r}`,
      );

    const registry = await carShareTable(sql);
    if (registry) {
      const { rows } = await sql.query<{ more: boolean; select: boolean }>(
        `select has_table_privilege($2, $1::oid, 'INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER') as more,
                has_table_privilege($2, $1::oid, 'SELECT') as select`,
        [registry.oid, role],
      );
      if (rows[0]?.more) await sql.query(`revoke all on table ${registry.name} from ${r}`);
      if (rows[0]?.more || !rows[0]?.select)
        await sql.query(`grant select on table ${registry.name} to ${r}`);
    }

    const { rows: schemas } = await sql.query<{ name: string }>(
      `select distinct n.nspname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.oid = any ($1::oid[]) and not has_schema_privilege($2, n.oid, 'USAGE')`,
      [[...tables.map((t) => t.oid), ...(registry ? [registry.oid] : [])], role],
    );
    for (const s of schemas) await sql.query(`grant usage on schema ${quoteIdent(s.name)} to ${r}`);

    // Sequences behind a car share table's columns (serial or identity): nextval needs USAGE.
    const { rows: sequences } = await sql.query<{ name: string }>(
      `select distinct s.oid::regclass::text as name from pg_class s
         join pg_depend d on d.classid = 'pg_class'::regclass and d.objid = s.oid
          and d.refclassid = 'pg_class'::regclass and d.deptype in ('a', 'i')
        where s.relkind = 'S' and d.refobjid = any ($1::oid[])
          and not (has_sequence_privilege($2, s.oid, 'USAGE') and has_sequence_privilege($2, s.oid, 'SELECT'))`,
      [tables.map((t) => t.oid), role],
    );
    if (sequences.length > 0)
      await sql.query(`grant usage, select on sequence ${sequences.map((s) => s.name).join(', ')} to ${r}`);
    await sql.query('commit');
  } catch (e) {
    await sql.query('rollback').catch(() => undefined);
    throw e;
  }
}

async function createRole(sql: Sql, role: string): Promise<void> {
  const { rows } = await sql.query('select 1 from pg_roles where rolname = $1', [role]);
  if (rows.length > 0) return;
  try {
    // Its attributes are never changed afterwards: a role found superuser or BYPASSRLS is refused at start
    // (isolation.check.ts), not quietly repaired.
    await sql.query(`create role ${quoteIdent(role)} nologin nosuperuser nobypassrls`);
  } catch (e) {
    const code = (e as { code?: string }).code ?? '';
    if (ALREADY_THERE.has(code)) return;
    throw new Error(
      `could not create DATABASE_APP_ROLE "${role}" (${(e as Error).message}): create it as a superuser with ` +
        `CREATE ROLE "${role}" NOLOGIN NOSUPERUSER NOBYPASSRLS, and GRANT "${role}" TO the DATABASE_URL user`,
      { cause: e },
    );
  }
}

/** The DATABASE_URL user must be able to SET ROLE to it; a superuser always can. */
async function actAs(sql: Sql, role: string): Promise<void> {
  const { rows } = await sql.query<{ can: boolean }>(
    `select (select rolsuper from pg_roles where rolname = current_user)
         or pg_has_role(current_user, $1, 'MEMBER') as can`,
    [role],
  );
  if (rows[0]?.can) return;
  try {
    await sql.query(`grant ${quoteIdent(role)} to current_user`);
  } catch (e) {
    if (ALREADY_THERE.has((e as { code?: string }).code ?? '')) return;
    throw new Error(
      `could not grant DATABASE_APP_ROLE "${role}" to the DATABASE_URL user (${(e as Error).message})`,
      { cause: e },
    );
  }
}
