// MikroORM on PostgreSQL: one ORM per process; each request forks its own EntityManager.
import { Migrator } from '@mikro-orm/migrations';
import { type EntityManager, MikroORM, type Options } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { carShareFilter } from './car-share-condition.js';
import { migrations } from './migrations/index.js';
import { mergeTransactionEdges } from './transaction-edges.js';

export type { EntityManager };
export type Orm = MikroORM;

export async function openOrm(
  clientUrl: string,
  entities: NonNullable<Options['entities']>,
  opts: {
    debug?: boolean;
    pool?: number;
    onQuery?: (sql: string) => void;
    rewrite?: ((sql: string) => string) | undefined;
    /**
     * The role every connection starts as (DATABASE_APP_ROLE): a statement that runs outside any car share's scope
     * then sees no row (CONTRACT §24); work across car shares switches back (src/db/scope.ts `deploymentEm`).
     */
    appRole?: string | undefined;
  } = {},
): Promise<MikroORM> {
  if (opts.appRole !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(opts.appRole))
    throw new Error(`the app role ${opts.appRole} is not a plain SQL name`);
  const orm = await MikroORM.init({
    ...(opts.appRole ? { driverOptions: { options: `-c role=${opts.appRole}` } } : {}),
    clientUrl,
    entities,
    extensions: [Migrator],
    migrations: {
      migrationsList: migrations,
      snapshot: false,
      transactional: true,
      allOrNothing: true,
      silent: true,
    },
    pool: { min: 0, max: opts.pool ?? 10 },
    // Entities are plain classes built with defineEntity; their metadata is not discovered from files.
    discovery: { warnWhenNoEntities: false },
    debug: opts.debug ?? false,
    // Ids are generated in code, so flushes never wait on RETURNING id round-trips.
    forceUtcTimezone: true,
    allowGlobalContext: false,
    // A scoped EntityManager's finds, counts, native updates and deletes name `car_share_id = ?` (CONTRACT §25).
    filters: { carShare: carShareFilter },
    // A hook for counting statements (tests and benchmarks), and for a test to run another statement instead, to
    // hold one read at a point of its choosing (test/rest-facade/read-after-write.test.ts).
    onQuery: (sql: string) => {
      opts.onQuery?.(sql);
      return opts.rewrite ? opts.rewrite(sql) : sql;
    },
  });
  // Each connection, as it is handed out, sends a transaction's BEGIN with its scope and its NOTIFY with its COMMIT.
  const pool = (await orm.em.getConnection().getNativeClient()) as pg.Pool;
  pool.on('acquire', mergeTransactionEdges);
  return orm;
}
