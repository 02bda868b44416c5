// The code that landed before car shares, measured in the same run as today's (issue 28: "no regression against
// the last landed code"): checked out from git into a temporary worktree, built as `npm start` runs it, seeded by
// its own bench code on a database of its own, and started as `ours-before` (its service) and `L1-before` (its L1,
// the SQL of its schema). Its CPU efficiency against its L1 is the figure today's must stay within 10 % of.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { freePort } from '../support/port.js';
import type { Variant } from './processes.js';
import { root } from './processes.js';
import { BENCH_PASSWORD, ownersOf, type SeedSize, userName } from './seed.js';
import { APP_SCOPES, type BenchDatabase, createDatabase, READER_SCOPES, REDIRECT_URI } from './setup.js';
import { clientCredentialsToken, userToken } from './tokens.js';

/** The last commit that landed before issue 28 (car shares) began: `--landed <rev>` names another. */
export const LANDED_BEFORE_CAR_SHARES = '569d54e';

export interface Landed {
  tokens: { reader: string; user: string };
  /** Fresh tokens (they live 15 minutes). */
  refresh(): Promise<{ reader: string; user: string }>;
  /** Its database, whose PostgreSQL backends' CPU counts toward its trials. */
  dbName: string;
  cleanup(): Promise<void>;
}

/** The landed tree's own bench modules (its `prepare`, `startVariant`, ...), loaded from its checkout. */
async function load<T>(dir: string, file: string): Promise<T> {
  return (await import(pathToFileURL(join(dir, 'test/bench', file)).href)) as T;
}

/** The packages (path@version) of `rev`'s lockfile that today's lockfile lacks or holds in another version. */
function packagesMissing(rev: string): string[] {
  type Lock = { packages: Record<string, { version?: string }> };
  const lockAt = (r: string): Lock =>
    JSON.parse(
      execFileSync('git', ['show', `${r}:package-lock.json`], { cwd: root, maxBuffer: 1 << 28 }).toString(),
    );
  const then = lockAt(rev).packages;
  const now = lockAt('HEAD').packages;
  return Object.entries(then)
    .filter(([path, p]) => path !== '' && now[path]?.version !== p.version)
    .map(([path, p]) => `${path}@${p.version}`);
}

export async function startLanded(o: {
  rev: string;
  server: string;
  certs: { TLS_CERT: string; TLS_KEY: string };
  ca: string;
  size: SeedSize;
  processes: Map<string, Variant>;
  log: (line: string) => void;
}): Promise<Landed> {
  const dir = mkdtempSync(join(tmpdir(), 'carshare-landed-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'carshare-landed-data-'));
  let database: BenchDatabase | undefined;
  const cleanup = async () => {
    await database?.drop().catch(() => undefined);
    try {
      execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: root, stdio: 'ignore' });
    } catch {
      rmSync(dir, { recursive: true, force: true });
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    o.log(`landed code ${o.rev}: checking out and building`);
    execFileSync('git', ['worktree', 'add', '--detach', dir, o.rev], { cwd: root, stdio: 'ignore' });
    // Today's node_modules serves it when every package its lockfile names is there in the same version (packages
    // added since are no matter): else its own `npm ci` would be needed.
    const missing = packagesMissing(o.rev);
    if (missing.length > 0)
      throw new Error(
        `landed code ${o.rev} needs packages node_modules lacks: ${missing.slice(0, 5).join(', ')}`,
      );
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    type Processes = typeof import('./processes.js');
    const p = await load<Processes>(dir, 'processes.ts');
    p.buildCompiled();
    const setup = await load<typeof import('./setup.js')>(dir, 'setup.ts');
    database = await createDatabase(o.server);
    const prepared = await setup.prepare(database.url, dataDir, o.size);
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    await db.query('create extension if not exists pgcrypto');
    const borrower = userName(ownersOf(o.size));
    // Landed code with car shares seeds two and its L1 reads one (CAR_SHARE_ID): the borrower is that car share's.
    const carShareId = (prepared as { carShareId?: string }).carShareId;
    const borrowerId = (
      carShareId
        ? await db.query<{ id: string }>(
            'select id from user_account where car_share_id = $1 and username = $2',
            [carShareId, borrower],
          )
        : await db.query<{ id: string }>('select id from user_account where username = $1', [borrower])
    ).rows[0]!.id;
    await db.end();

    // One instance: every trial's PostgreSQL CPU counts all client backends of its database, so each database has
    // one relay answering the outbox's NOTIFYs, as in a one-instance deployment. The landed code's every instance
    // answers each NOTIFY with a look; today's instances leave that to the one holding the relay's lead (`ours`,
    // started first: src/events/relay.ts, src/db/session-lead.ts). With five landed instances an event cost five
    // looks there and one here, in L1's trials as in the service's, and the ratio of the two ratios read that
    // shared difference instead of the service's own. Left uneven: the landed service's own process does its look,
    // while `ours-rls` leaves it to `ours`.
    const port = await freePort();
    const ours = await p.startVariant(
      'ours-before',
      'variants/ours.ts',
      {
        ...p.serviceEnv({ databaseUrl: database.url, dataDir, port, logLevel: 'info' }),
        // Its own startVariant may not name its backends (measure.ts tells PostgreSQL CPU apart by process).
        PGAPPNAME: 'ours-before',
        ...o.certs,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        ...p.startEnv(),
      },
      true,
      p.startFlags(),
    );
    o.processes.set('ours-before', ours);
    const origin = `https://localhost:${ours.port}`;
    const refresh = async () => ({
      reader: await clientCredentialsToken(origin, o.ca, prepared.reader, READER_SCOPES),
      user: await userToken(
        origin,
        o.ca,
        prepared.app,
        REDIRECT_URI,
        { username: borrower, password: BENCH_PASSWORD },
        APP_SCOPES,
      ),
    });
    const tokens = await refresh();
    o.processes.set(
      'L1-before',
      await p.startVariant('L1-before', 'variants/l1.ts', {
        ...o.certs,
        DATABASE_URL: database.url,
        POOL: '10',
        BORROWER_ID: borrowerId,
        ...(carShareId ? { CAR_SHARE_ID: carShareId } : {}),
        PGAPPNAME: 'L1-before',
      }),
    );
    return { tokens, refresh, dbName: database.name, cleanup };
  } catch (e) {
    await cleanup();
    throw e;
  }
}
