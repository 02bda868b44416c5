// Starting the measured processes (the service, the baselines, the peer) and the load generator, each its own
// Node process with the probe preloaded, and asking them over IPC for their statement count, CPU and memory.
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Job, LoadResult } from './driver.js';
import type { ProbeStats } from './probe.js';

const here = import.meta.dirname;
export const root = resolve(here, '../..');

export interface Variant {
  name: string;
  port: number;
  pid: number;
  stats(): Promise<ProbeStats>;
  stop(): Promise<void>;
}

function ask<T>(child: ChildProcess, type: string, payload: object, pick: (m: unknown) => T | undefined) {
  return new Promise<T>((ok, fail) => {
    const onMessage = (m: unknown) => {
      const v = pick(m);
      if (v === undefined) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      ok(v);
    };
    const onExit = (code: number | null) => fail(new Error(`${type}: process exited with ${code}`));
    if (!child.connected) return fail(new Error(`${type}: the process has exited`));
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send({ type, ...payload }, (err) => {
      if (err) {
        child.off('message', onMessage);
        child.off('exit', onExit);
        fail(err);
      }
    });
  });
}

let ids = 0;

/** Where `buildCompiled` puts the compiled service variant and probe (test/bench/tsconfig.json). */
const compiledDir = resolve(root, 'dist/test/bench');

/**
 * The service is measured as production runs it: `npm run build` (dist/), then the variant and the probe
 * compiled beside it, so no run-time transpiler is in the measured process.
 */
export function buildCompiled(): void {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  execFileSync(resolve(root, 'node_modules/.bin/tsc'), ['-p', resolve(here, 'tsconfig.json')], {
    cwd: root,
    stdio: 'inherit',
  });
}

/**
 * The measured service's environment: HTTPS on `port` with the bench certificate in `dataDir`, rate limits out of
 * the way, the bench operator. Each caller adds what its scenario needs.
 */
export function serviceEnv(o: {
  databaseUrl: string;
  dataDir: string;
  port: number;
  logLevel: string;
}): Record<string, string> {
  const unlimited = '1000000000';
  return {
    TLS_CERT: join(o.dataDir, 'tls', 'localhost.crt'),
    TLS_KEY: join(o.dataDir, 'tls', 'localhost.key'),
    DATABASE_URL: o.databaseUrl,
    DATA_DIR: o.dataDir,
    PORT: String(o.port),
    PUBLIC_URL: `https://localhost:${o.port}`,
    HTTP_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: o.logLevel,
    RATE_LIMIT_PER_MINUTE: unlimited,
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: unlimited,
    RATE_LIMIT_AUTH_PER_MINUTE: unlimited,
    OPS_EMAIL: 'ops@bench.example',
    OPS_PASSWORD: 'ops passphrase for the bench',
  };
}

/** package.json's `start` (`NAME=value … exec node <flags> dist/src/start.js`) as words. */
function startWords(): { words: string[]; node: number; script: number } {
  const { scripts } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const words = scripts.start!.split(/\s+/);
  const node = words.indexOf('node');
  const script = words.findIndex((w) => w.endsWith('start.js'));
  if (node < 0 || script < node) throw new Error(`unexpected start script: ${scripts.start}`);
  return { words, node, script };
}

/** The Node flags `npm start` gives the service, so the measured service runs with exactly those. */
export function startFlags(): string[] {
  const { words, node, script } = startWords();
  return words.slice(node + 1, script).filter((w) => w.startsWith('--'));
}

/** The environment variables `npm start` sets for the service (`MALLOC_ARENA_MAX=2`), likewise. */
export function startEnv(): Record<string, string> {
  const { words, node } = startWords();
  return Object.fromEntries(
    words
      .slice(0, node)
      .filter((w) => /^[A-Z_]+=/.test(w))
      .map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
  );
}

/** The service as `npm start` runs it (its flags and environment, then `env`), in a process of its own. */
export const startAsNpmStart = (env: Record<string, string>, compiled = false): Promise<Variant> =>
  startVariant('ours', 'variants/ours.ts', { ...startEnv(), ...env }, compiled, startFlags());

/**
 * Forks `file` (relative to test/bench) and waits for its `{type:'ready', port}`. A `compiled` variant runs
 * its JavaScript from dist/ (see `buildCompiled`); the others run through tsx.
 */
export async function startVariant(
  name: string,
  file: string,
  env: Record<string, string>,
  compiled = false,
  /** Node and V8 flags for the process (many V8 flags are refused in NODE_OPTIONS). */
  nodeFlags: readonly string[] = [],
): Promise<Variant> {
  let output = '';
  const js = (f: string) => resolve(compiledDir, f.replace(/\.ts$/, '.js'));
  const child = fork(compiled ? js(file) : resolve(here, file), [], {
    cwd: root,
    // BENCH_EXEC_PATH=<script>: the measured process runs under a wrapper that execs Node with these arguments
    // (heaptrack, strace), to see where its memory outside V8's heap goes.
    ...(process.env.BENCH_EXEC_PATH ? { execPath: process.env.BENCH_EXEC_PATH } : {}),
    execArgv: [
      ...nodeFlags,
      ...(compiled ? [] : ['--import', 'tsx']),
      '--import',
      compiled ? js('probe.ts') : resolve(here, 'probe.ts'),
      // BENCH_PROFILE=<dir>: a V8 CPU profile of every measured process, written when it stops.
      ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
    ],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      ...(process.env.BENCH_SQL_LOG ? { BENCH_SQL_LOG: process.env.BENCH_SQL_LOG } : {}),
      // Its PostgreSQL backends carry its name (pg reads PGAPPNAME): their CPU is told apart by process (measure.ts).
      PGAPPNAME: name,
      ...env,
    },
    // The service's request log goes where production would send it: out of this process.
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  child.stderr?.on('data', (d) => {
    output = (output + String(d)).slice(-4000);
  });
  // A process that died (out of memory, say) must not take the harness down with it: its cleanup has to run.
  child.on('error', () => undefined);
  child.once('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM' && code !== null)
      process.stderr.write(`  ${name} exited with ${code}:\n${output.slice(-1500)}\n`);
  });
  const port = await new Promise<number>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${name} not ready after 120 s:\n${output}`)), 120_000);
    child.on('message', (m: { type?: string; port?: number }) => {
      if (m.type === 'ready') {
        clearTimeout(timer);
        ok(m.port!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${name} exited with ${code}:\n${output}`));
    });
  });
  return {
    name,
    port,
    pid: child.pid!,
    stats: () => {
      const id = ++ids;
      return ask(child, 'stats', { id }, (m) => {
        const r = m as { type: string; id: number; stats: ProbeStats };
        return r.type === 'stats' && r.id === id ? r.stats : undefined;
      });
    },
    stop: () =>
      new Promise<void>((ok) => {
        if (child.exitCode !== null || child.signalCode !== null) return ok();
        const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(kill);
          ok();
        });
        child.kill('SIGTERM');
      }),
  };
}

export interface Driver {
  run(job: Job): Promise<LoadResult>;
  stop(): void;
}

export function startDriver(): Driver {
  const child = fork(resolve(here, 'driver.ts'), [], {
    cwd: root,
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return {
    run(job) {
      const id = ++ids;
      return new Promise((ok, fail) => {
        const onExit = (code: number | null) => fail(new Error(`load generator exited with ${code}`));
        const onMessage = (m: { id: number; result: LoadResult }) => {
          if (m.id !== id) return;
          child.off('message', onMessage);
          child.off('exit', onExit);
          ok(m.result);
        };
        child.on('message', onMessage);
        child.once('exit', onExit);
        child.send({ id, job });
      });
    },
    stop: () => child.kill('SIGTERM'),
  };
}

/** CPU time (µs) of processes by pid, from /proc (clock ticks are 10 ms). */
export function cpuOf(pids: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(pid, (Number(fields[11]) + Number(fields[12])) * 10_000);
    } catch {
      // gone
    }
  }
  return out;
}
