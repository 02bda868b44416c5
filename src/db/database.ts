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
  /** DATABASE_APP_ROLE: the role car share work runs as. */
  appRole?: string;
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
    orm = await openOrm(url, opts.entities as NonNullable<Options['entities']>);
    if (opts.migrate !== false) {
      const applied = await migrate(orm, url);
      if (applied.length > 0) opts.onMigrated?.(applied);
      await secureAppRole(url, opts.appRole ?? DEFAULT_APP_ROLE);
    }
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
