// Opens the configured database (DATABASE_URL, or the embedded one in DATA_DIR), applies migrations, makes and grants
// DATABASE_APP_ROLE, and refuses a database that does not enforce the isolation of car shares (CONTRACT §24).
import type { Options } from '@mikro-orm/postgresql';
import pg from 'pg';
import { ensureAppRole } from './app-role.js';
import { DEFAULT_APP_ROLE } from './car-share-tables.js';
import { type EmbeddedDatabase, startEmbedded } from './embedded.js';
import { checkIsolation } from './isolation.check.js';
import { migrate } from './migrate.js';
import { type Orm, openOrm } from './orm.js';
import { useAppRole, useDeploymentRole } from './scope.js';

export interface Database {
  orm: Orm;
  url: string;
  embedded: EmbeddedDatabase | null;
  close(): Promise<void>;
}

export async function openDatabase(opts: {
  databaseUrl: string | undefined;
  dataDir: string;
  entities: unknown[];
  /** Migrate, then make and grant the app role and check isolation; false for a tool reading a running service's. */
  migrate?: boolean;
  /**
   * DATABASE_APP_ROLE: the role car share work runs as. `null` is the benchmark's switch alone (test/bench's
   * `ours-norls`, CONTRACT §24's last paragraph): the same statements as the DATABASE_URL user, whom no policy binds.
   */
  appRole?: string | null;
  /** Stop an embedded postmaster found running when closing, if nothing else uses it (embedded.ts). */
  stopAdoptedEmbedded?: boolean;
  /** Told which migrations were applied. */
  onMigrated?: (names: string[]) => void;
}): Promise<Database> {
  const embedded = opts.databaseUrl
    ? null
    : await startEmbedded(opts.dataDir, undefined, {
        stopAdopted: opts.stopAdoptedEmbedded ?? false,
      });
  const url = opts.databaseUrl ?? embedded!.url;
  let orm: Orm | undefined;
  try {
    const role = opts.appRole ?? DEFAULT_APP_ROLE;
    const bypass = opts.appRole === null;
    if (opts.migrate !== false) {
      // Migrations and the role's grants as the DATABASE_URL user, on connections of their own.
      const owner = await openOrm(url, opts.entities as NonNullable<Options['entities']>, { pool: 2 });
      try {
        const applied = await migrate(owner, url);
        if (applied.length > 0) opts.onMigrated?.(applied);
        await secureAppRole(url, role);
      } finally {
        await owner.close(true);
      }
    }
    // The service's connections start as the app role: a statement outside any car share's scope sees no row.
    // Car share work runs as it (src/db/scope.ts); work across car shares switches back to the DATABASE_URL user.
    orm = await openOrm(
      url,
      opts.entities as NonNullable<Options['entities']>,
      bypass ? {} : { appRole: role },
    );
    useAppRole(bypass ? undefined : role);
    const [me] = await orm.em.fork().getConnection().execute<{ u: string }[]>('select session_user as u');
    useDeploymentRole(me!.u);
    const opened = orm;
    return {
      orm,
      url,
      embedded,
      async close() {
        await opened.close(true);
        await embedded?.stop();
      },
    };
  } catch (e) {
    await orm?.close(true).catch(() => undefined);
    await embedded?.stop();
    throw e;
  }
}

/** Makes and grants the app role, then checks that the database enforces isolation (throws IsolationError). */
export async function secureAppRole(url: string, role: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await ensureAppRole(client, role);
    await checkIsolation(client, role);
  } finally {
    await client.end();
  }
}
