// Starts the measured processes: the service (and its token-checking-off twin, once real tokens exist to map, and
// its twin without row-level security), L1 and P1, and gets the scenarios' tokens from its authorization server.
import type pg from 'pg';
import { clientActor, userActor } from '../../src/access/actor.js';
import { freePort } from '../support/port.js';
import { serviceEnv, startEnv, startFlags, startVariant, type Variant } from './processes.js';
import { BENCH_PASSWORD, ownersOf, type SeedSize, userName } from './seed.js';
import { APP_SCOPES, type Prepared, READER_SCOPES, REDIRECT_URI } from './setup.js';
import { clientCredentialsToken, userToken } from './tokens.js';

type Tokens = { reader: string; user: string };

/** The Node flags of the measured service: `npm start`'s, or those `BENCH_SERVICE_FLAGS` names instead. */
const serviceFlags = (): string[] => {
  const given = process.env.BENCH_SERVICE_FLAGS;
  return given === undefined ? startFlags() : given.split(/\s+/).filter((w) => w.startsWith('--'));
};

export interface StartOptions {
  processes: Map<string, Variant>;
  db: pg.Client;
  databaseUrl: string;
  dataDir: string;
  certs: { TLS_CERT: string; TLS_KEY: string };
  ca: string;
  size: SeedSize;
  prepared: Prepared;
}

export async function startAll(
  o: StartOptions,
): Promise<{ ours: Variant; tokens: Tokens; refresh: () => Promise<Tokens> }> {
  const service = async (name: string, extra: Record<string, string> = {}) => {
    const port = await freePort();
    const v = await startVariant(
      name,
      'variants/ours.ts',
      {
        // Production's level: one JSON line per request (to /dev/null here).
        ...serviceEnv({ databaseUrl: o.databaseUrl, dataDir: o.dataDir, port, logLevel: 'info' }),
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        // As `npm start` runs it (MALLOC_ARENA_MAX), unless this run asks for another.
        ...startEnv(),
        // e.g. `--max-old-space-size=256`: how the service fares with its heap capped.
        // glibc's malloc arenas (one per thread that allocates: the pool threads, V8's GC helpers) hold memory.
        ...(process.env.MALLOC_ARENA_MAX ? { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX } : {}),
        ...(process.env.BENCH_SERVICE_NODE_OPTIONS
          ? { NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS }
          : {}),
        ...extra,
      },
      true,
      // As `npm start` runs it, unless this run names other flags (`BENCH_SERVICE_FLAGS`, e.g. without
      // `--expose-gc`: the service without forced collections, against L1 and L0 of the same run).
      serviceFlags(),
    );
    o.processes.set(name, v);
    return v;
  };
  const ours = await service('ours');
  const origin = `https://localhost:${ours.port}`;
  const borrower = userName(ownersOf(o.size));
  // Access tokens live 15 minutes and a run lasts longer: the harness asks for fresh ones before each scenario.
  const refresh = async () => ({
    reader: await clientCredentialsToken(origin, o.ca, o.prepared.reader, READER_SCOPES),
    user: await userToken(
      origin,
      o.ca,
      o.prepared.app,
      REDIRECT_URI,
      { username: borrower, password: BENCH_PASSWORD },
      APP_SCOPES,
    ),
  });
  const tokens = await refresh();
  const borrowerId = (
    await o.db.query<{ id: string }>(
      'select id from user_account where car_share_id = $1 and username = $2',
      [o.prepared.carShareId, borrower],
    )
  ).rows[0]!.id;
  await service('ours-noauth', {
    BENCH_TOKENS: JSON.stringify({
      [tokens.reader]: clientActor(o.prepared.reader.id, ['cars:read', 'bookings:read']),
      [tokens.user]: userActor(borrowerId, { scopes: ['cars:read', 'bookings:read', 'bookings:write'] }),
    }),
  });
  // Issue 28's twins, started alike and serving only its scenarios: the service as `npm start` runs it, and the
  // same service with its car share work as the database's owner, where no policy applies (the control).
  await service('ours-rls');
  await service('ours-norls', { BENCH_WITHOUT_RLS: '1' });
  // Issue 30's S3 with REDIS_URL: the REST cache and the rate limits in Redis, under a prefix of this run's own.
  await service('ours-redis', {
    REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: `carshare-bench-${process.pid}:`,
  });
  const base = { ...o.certs, DATABASE_URL: o.databaseUrl, POOL: '10', CAR_SHARE_ID: o.prepared.carShareId };
  o.processes.set('L1', await startVariant('L1', 'variants/l1.ts', { ...base, BORROWER_ID: borrowerId }));
  o.processes.set('P1', await startVariant('P1', 'variants/p1.ts', base));
  return { ours, tokens, refresh };
}
