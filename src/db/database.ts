// Opens the configured database (DATABASE_URL, or the embedded one in DATA_DIR) and applies migrations.
import type { Options } from '@mikro-orm/postgresql';
import { type EmbeddedDatabase, startEmbedded } from './embedded.js';
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
  migrate?: boolean;
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
  try {
    const orm = await openOrm(url, opts.entities as NonNullable<Options['entities']>);
    if (opts.migrate !== false) {
      const applied = await migrate(orm, url);
      if (applied.length > 0) opts.onMigrated?.(applied);
    }
    return {
      orm,
      url,
      embedded,
      async close() {
        await orm.close(true);
        await embedded?.stop();
      },
    };
  } catch (e) {
    await embedded?.stop();
    throw e;
  }
}
