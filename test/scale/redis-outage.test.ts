// Redis going away mid-run: rate limits and the REST cache step aside (fail open) instead of holding every
// request, and things carry on when Redis is back.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../support/port.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import { describeWithRedis } from './support.js';

function redisServerProblem(): string | undefined {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'no redis-server binary to run a throwaway Redis';
  }
}

let port: number;
let redis: ChildProcess | undefined;
let s: TestService;

async function startRedis(): Promise<void> {
  redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  await waitFor(
    () => {
      try {
        execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    },
    { timeoutMs: 5000, everyMs: 50, what: 'the throwaway Redis to answer' },
  );
}

async function stopRedis(): Promise<void> {
  const r = redis;
  if (!r || r.exitCode !== null) return;
  const exited = new Promise((ok) => r.once('exit', ok));
  r.kill('SIGKILL');
  await exited;
}

/** A sign-up over REST: it passes the rate limiter (sign-in class) and bumps the REST cache's versions. */
const signUp = (n: string) =>
  s.fetch('/api/useraccounts', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      Username: `outage-${n}@example.com`,
      Password: 'a long and unusual passphrase',
      FirstName: 'O',
      LastName: 'U',
    }),
    // Bounded so a hang fails the test instead of the suite's timeout.
    signal: AbortSignal.timeout(10_000),
  });

describeWithRedis('a Redis outage', redisServerProblem(), () => {
  beforeAll(async () => {
    port = await freePort();
    await startRedis();
    s = await startTestService({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
  });
  afterAll(async () => {
    if (redis?.exitCode !== null) await startRedis(); // let the clients say goodbye to a live server
    await s?.close();
    await stopRedis();
  });

  it('serves on while Redis is down, and counts again once it is back', async () => {
    expect((await signUp('before')).status).toBe(201);
    await stopRedis();
    const during = await signUp('during');
    expect(during.status).toBe(201);
    expect((await s.fetch('/healthz', { signal: AbortSignal.timeout(10_000) })).status).toBe(200);
    await startRedis();
    // Reconnection takes a moment; within it requests are still served (uncounted), then counted again.
    let n = 0;
    const after = await waitFor(
      async () => {
        const r = await signUp(`after-${n++}`);
        expect(r.status).toBe(201);
        return r.headers.get('ratelimit-limit') ? r : undefined;
      },
      { timeoutMs: 5000, everyMs: 100, what: 'the rate limiter to count again' },
    );
    expect(after.headers.get('ratelimit-limit')).toBe('1000000');
  });
});
