// The service's life as a person at a terminal sees it (CONTRACT §27): closing the terminal stops it cleanly, a
// database left behind by a killed run is said and stopped, a second start on a taken port is one line, and the
// ready line is plain text.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetch } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { agentFor, type Running, startProcess, waitReady } from '../support/process.js';
import { waitFor } from '../support/wait.js';

const PROCESS_TIMEOUT = 120_000;
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'carshare-life-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const OPS = { OPS_EMAIL: 'ops@example.com', OPS_PASSWORD: 'operator passphrase 1' };

/** The embedded postmaster's pid, from the pid file it keeps in the data directory. */
const postmasterPid = (dataDir: string): number | undefined => {
  const file = join(dataDir, 'postgres', 'postmaster.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : undefined;
};
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const gone = (pid: number) =>
  waitFor(async () => !alive(pid), { timeoutMs: 15_000, everyMs: 100, what: `process ${pid} to end` });

async function started(dataDir: string): Promise<Running> {
  const p = await startProcess({ DATA_DIR: dataDir, ...OPS });
  await waitReady(p, dataDir);
  return p;
}

describe('process life', () => {
  it(
    'closing the terminal (SIGHUP) stops the service and its embedded database, exit 0',
    async () => {
      const dataDir = tempDir();
      const p = await started(dataDir);
      const pid = postmasterPid(dataDir)!;
      expect(alive(pid)).toBe(true);
      expect(await p.stop('SIGHUP')).toBe(0);
      expect(p.output()).toContain('"msg":"stopped"');
      await gone(pid);
    },
    PROCESS_TIMEOUT,
  );

  it(
    'a start that finds a postmaster it did not spawn says so, and stops it on a clean exit',
    async () => {
      const dataDir = tempDir();
      const killed = await started(dataDir);
      const orphan = postmasterPid(dataDir)!;
      // A killed service cannot stop its database: it is left running, as after a crash.
      expect(await killed.stop('SIGKILL')).toBeNull();
      expect(alive(orphan)).toBe(true);

      const next = await started(dataDir);
      expect(next.output()).toMatch(/"level":40[^\n]*did not spawn/);
      const health = await fetch(`https://localhost:${next.port}/healthz`, { dispatcher: agentFor(dataDir) });
      expect(health.status).toBe(200);
      expect(await next.stop('SIGTERM')).toBe(0);
      await gone(orphan);
    },
    PROCESS_TIMEOUT,
  );

  it(
    'says when it is ready in a plain line, and a second start on the same port is one line and exit 1',
    async () => {
      const dataDir = tempDir();
      const first = await started(dataDir);
      try {
        const base = `https://localhost:${first.port}`;
        expect(first.output().split('\n')).toContain(
          `Carshare is ready at ${base} — API reference ${base}/docs — dashboard ${base}/dashboard`,
        );
        const second = await startProcess({ DATA_DIR: tempDir(), PORT: String(first.port) });
        expect(await second.exited).toBe(1);
        expect(second.output().trim().split('\n')).toEqual([
          `port ${first.port} (PORT) is in use — is Carshare already running? Set PORT and HTTP_PORT to use others`,
        ]);
        const third = await startProcess({ DATA_DIR: tempDir(), HTTP_PORT: String(first.httpPort) });
        expect(await third.exited).toBe(1);
        expect(third.output().trim()).toBe(
          `port ${first.httpPort} (HTTP_PORT) is in use — is Carshare already running? Set PORT and HTTP_PORT to use others`,
        );
      } finally {
        expect(await first.stop()).toBe(0);
      }
    },
    PROCESS_TIMEOUT,
  );

  it(
    'static files stay out of the request log at info; API requests are in it',
    async () => {
      const dataDir = tempDir();
      const p = await started(dataDir);
      try {
        const agent = agentFor(dataDir);
        const base = `https://localhost:${p.port}`;
        for (const path of ['/docs/assets/init.js', '/dashboard/assets/dashboard.css', '/healthz']) {
          const r = await fetch(`${base}${path}`, { dispatcher: agent });
          await r.arrayBuffer();
        }
        await waitFor(async () => p.output().includes('"path":"/healthz"'), {
          timeoutMs: 5_000,
          everyMs: 50,
          what: 'the /healthz log line',
        });
        const logged = p
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{') && l.includes('"msg":"request"'))
          .map((l) => JSON.parse(l).path as string);
        expect(logged).toContain('/healthz');
        expect(logged.filter((path) => path.includes('/assets/'))).toEqual([]);
      } finally {
        await p.stop();
      }
    },
    PROCESS_TIMEOUT,
  );
});
