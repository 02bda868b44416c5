// Starting the real service as a child process (what `npm start` runs), and talking to it over HTTPS.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Agent, fetch } from 'undici';
import { parseMetrics } from './metrics.js';
import { freePort } from './port.js';
import { waitFor } from './wait.js';

const root = resolve(import.meta.dirname, '../..');

export interface Running {
  child: ChildProcess;
  port: number;
  httpPort: number;
  output: () => string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Resolves with the exit code once the process ends by itself. */
  exited: Promise<number | null>;
}

export async function startProcess(env: Record<string, string>): Promise<Running> {
  const port = await freePort();
  const httpPort = await freePort();
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      PORT: String(port),
      HTTP_PORT: String(httpPort),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => {
    out += String(d);
  });
  child.stderr?.on('data', (d) => {
    out += String(d);
  });
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  return {
    child,
    port,
    httpPort,
    output: () => out,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

export function agentFor(dataDir: string): Agent {
  return new Agent({ connect: { ca: readFileSync(join(dataDir, 'tls', 'localhost.crt'), 'utf8') } });
}

/** Polls until the URL answers 200 (the certificate appears on first start), or fails after `ms`. */
export async function waitReady(p: Running, dataDir: string, path = '/readyz', ms = 60_000): Promise<void> {
  await waitFor(
    async () => {
      if (p.child.exitCode !== null) throw new Error(`service exited ${p.child.exitCode}`);
      try {
        return (
          (await fetch(`https://localhost:${p.port}${path}`, { dispatcher: agentFor(dataDir) })).status ===
          200
        );
      } catch {
        return false; // not listening yet
      }
    },
    { timeoutMs: ms, everyMs: 150, what: `the service to answer ${path} with 200` },
  ).catch((err: Error) => {
    throw new Error(`${err.message}:\n${p.output()}`);
  });
}

export async function graphql(
  p: Running,
  dataDir: string,
  query: string,
  variables?: Record<string, unknown>,
) {
  const r = await fetch(`https://localhost:${p.port}/graphql`, {
    dispatcher: agentFor(dataDir),
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return (await r.json()) as {
    data?: Record<string, any>;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
}

/**
 * What the service has received so far, read from its /metrics: requests in flight (not counting this scrape)
 * and requests already answered with the given method. How a test knows its requests have arrived before it
 * acts on the process, instead of guessing with a sleep.
 */
export async function requestsSeen(
  port: number,
  agent: Agent,
  method: string,
): Promise<{ inFlight: number; answered: number }> {
  const text = await (await fetch(`https://localhost:${port}/metrics`, { dispatcher: agent })).text();
  let inFlight = -1;
  let answered = 0;
  for (const s of parseMetrics(text)) {
    if (s.name === 'http_requests_in_flight') inFlight += s.value;
    else if (s.name === 'http_requests_total' && s.labels.method === method) answered += s.value;
  }
  return { inFlight, answered };
}

/** Waits until `count` more requests of `method` than `before` answered have arrived, and some are still in flight. */
export async function waitArrived(
  port: number,
  agent: Agent,
  method: string,
  before: number,
  count: number,
  ms = 30_000,
): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const seen = await requestsSeen(port, agent, method);
    if (seen.inFlight >= 1 && seen.inFlight + seen.answered - before >= count) return;
    if (seen.answered - before >= count)
      throw new Error(`all ${count} ${method} requests were answered already`);
    if (Date.now() > until)
      throw new Error(`${count} ${method} requests did not arrive: ${JSON.stringify(seen)}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
