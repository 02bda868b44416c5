// Applies committed migrations under a PostgreSQL advisory lock, so instances starting together migrate once.
import pg from 'pg';
import type { Orm } from './orm.js';

/** Arbitrary but fixed: the key every instance locks on while migrating (and granting DATABASE_APP_ROLE). */
export const MIGRATION_LOCK_KEY = 727_274_663;

export async function migrate(orm: Orm, clientUrl: string): Promise<string[]> {
  const lock = new pg.Client({ connectionString: clientUrl });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const applied = await orm.migrator.up();
    return applied.map((m) => m.name);
  } finally {
    await lock.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lock.end();
  }
}

/** True when every committed migration has been applied (readiness). */
export async function migrationsPending(orm: Orm): Promise<number> {
  return (await orm.migrator.getPending()).length;
}
