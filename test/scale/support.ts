// Scale-out tests' support: real service processes (`src/main.ts`) on the test database and one Redis, on
// loopback, and what the tests do with them: client applications and their tokens, REST calls, graphql-ws
// clients, the processes' JSON log lines, and /metrics samples.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { type Client, createClient } from 'graphql-ws';
import { Redis } from 'ioredis';
import { Agent, fetch } from 'undici';
import { describe, inject, it } from 'vitest';
import { WebSocket } from 'ws';
import { createClientFromCli } from '../../src/clientapps/client-application.cli.js';
import type { Harness } from '../support/harness.js';
import { parseMetrics } from '../support/metrics.js';
import { type Running, startProcess, waitReady } from '../support/process.js';
import { waitFor } from '../support/wait.js';

/** A database of its own on the machine's Redis; keys of other runs cannot meet ours (all are per subject). */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/13';

/** Why Redis cannot be used, or undefined when it answers. */
export async function redisProblem(url = REDIS_URL): Promise<string | undefined> {
  const r = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let cause = '';
  r.on('error', (e: Error) => {
    cause = e.message;
  });
  try {
    await r.connect();
    return (await r.ping()) === 'PONG' ? undefined : `Redis at ${url} did not answer PING`;
  } catch (e) {
    return `no Redis at ${url} (${cause || (e as Error).message})`;
  } finally {
    r.disconnect();
  }
}

/**
 * A suite that needs Redis: where there is none it reports itself skipped with the reason, except under
 * CI=true, where a missing Redis is a failure (CI starts one, so a skip there would hide a broken setup).
 */
export function describeWithRedis(name: string, problem: string | undefined, body: () => void): void {
  if (!problem) describe(name, body);
  else if (process.env.CI === 'true')
    describe(name, () => {
      it('has the Redis CI provides', () => {
        throw new Error(`${problem}; these tests need Redis and CI must provide it`);
      });
    });
  else
    describe(name, () =>
      it('needs Redis', (ctx) => {
        console.warn(`${name}: skipped, ${problem}`);
        ctx.skip(problem);
      }),
    );
}

export interface Instance {
  name: string;
  proc: Running;
  port: number;
  /** Its DATA_DIR: the generated certificate is there. */
  dir: string;
  agent: Agent;
  /** The process's structured log lines so far. */
  logs(): Record<string, any>[];
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

const dirs: string[] = [];

export async function startInstance(name: string, env: Record<string, string>): Promise<Instance> {
  const dir = mkdtempSync(join(tmpdir(), `carshare-scale-${name}-`));
  dirs.push(dir);
  const proc = await startProcess({ DATABASE_URL: inject('databaseUrl'), DATA_DIR: dir, ...env });
  await waitReady(proc, dir);
  const agent = new Agent({ connect: { ca: readFileSync(join(dir, 'tls', 'localhost.crt'), 'utf8') } });
  return {
    name,
    proc,
    port: proc.port,
    dir,
    agent,
    logs: () =>
      proc
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, any>),
  };
}

/** An agent that trusts instance `i` and keeps one connection: a steady client on a kept-alive connection. */
export function singleConnection(i: Instance): Agent {
  return new Agent({
    connections: 1,
    connect: { ca: readFileSync(join(i.dir, 'tls', 'localhost.crt'), 'utf8') },
  });
}

export function removeInstanceDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export async function call(
  i: Instance,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string>; agent?: Agent } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
  const r = await fetch(`https://localhost:${i.port}${path}`, {
    method,
    headers,
    dispatcher: opts.agent ?? i.agent,
    ...(opts.body === undefined
      ? {}
      : { body: typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) }),
  });
  const text = await r.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, headers: r.headers as unknown as Headers, text, json };
}

export interface App {
  clientId: string;
  clientSecret: string;
}

let apps = 0;

/** A client application made as an operator would at the command line. */
export async function clientApp(h: Harness, scopes: string[]): Promise<App> {
  apps += 1;
  const r = await createClientFromCli(
    { orm: h.orm },
    ['--name', `Scale test app ${apps}`, '--grant', 'client_credentials', '--scopes', scopes.join(' ')],
    h.carShare.id,
  );
  return { clientId: r.ClientId, clientSecret: r.ClientSecret };
}

const basic = (a: App) => `Basic ${Buffer.from(`${a.clientId}:${a.clientSecret}`).toString('base64')}`;

/** A client-credentials access token from the token endpoint of instance `i`. */
export async function tokenFrom(i: Instance, a: App, scopes: string[]): Promise<string> {
  const r = await call(i, 'POST', '/api/oauth/token', {
    headers: { authorization: basic(a), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: scopes.join(' ') }).toString(),
  });
  if (r.status !== 200) throw new Error(`token request failed: ${r.status} ${r.text}`);
  return r.json.access_token as string;
}

export async function revoke(i: Instance, a: App, token: string): Promise<number> {
  const r = await call(i, 'POST', '/api/oauth/token/revocation', {
    headers: { authorization: basic(a), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });
  return r.status;
}

export interface LiveEvent {
  name: string;
  payload: Record<string, any>;
}

/** A graphql-ws subscriber to `events` on instance `i`; records what it hears and how its socket closed. */
export function subscriber(i: Instance, token: string, names: string[]) {
  const ca = readFileSync(join(i.dir, 'tls', 'localhost.crt'), 'utf8');
  class TrustingWS extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { ca });
    }
  }
  const got: LiveEvent[] = [];
  const closes: number[] = [];
  let resolveOpen: () => void;
  const opened = new Promise<void>((r) => {
    resolveOpen = r;
  });
  const client: Client = createClient({
    url: `wss://localhost:${i.port}/graphql`,
    webSocketImpl: TrustingWS,
    connectionParams: { Authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: false,
    // The close of a stopping instance is expected (the test reads `closes`), not an error to print.
    onNonLazyError: () => undefined,
    on: {
      connected: () => resolveOpen(),
      closed: (e) => closes.push((e as { code: number }).code),
    },
  });
  client.subscribe(
    {
      query: 'subscription($names: [String!]) { events(names: $names) { name payload } }',
      variables: { names },
    },
    {
      next: (m) => {
        const e = (m.data as { events?: LiveEvent } | null | undefined)?.events;
        if (e) got.push(e);
      },
      error: () => undefined,
      complete: () => undefined,
    },
  );
  return { got, closes, opened, dispose: () => client.dispose() };
}

/** The sum of the samples of `name` whose labels include `labels`. */
export async function metric(
  i: Instance,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const r = await call(i, 'GET', '/metrics');
  return parseMetrics(r.text)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/**
 * A graphql-ws peer that completes the handshake and `connection_init`, then stops reading and never answers
 * again (a vanished client): the server's goodbye gets no closing handshake back.
 */
export async function unresponsivePeer(i: Instance, token: string): Promise<TLSSocket> {
  const socket = connectTls({
    host: '127.0.0.1',
    port: i.port,
    servername: 'localhost',
    ca: readFileSync(join(i.dir, 'tls', 'localhost.crt'), 'utf8'),
  });
  await once(socket, 'secureConnect');
  let seen = '';
  socket.on('data', (d: Buffer) => {
    seen += d.toString('latin1');
  });
  socket.write(
    [
      'GET /graphql HTTP/1.1',
      `Host: localhost:${i.port}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
      'Sec-WebSocket-Version: 13',
      'Sec-WebSocket-Protocol: graphql-transport-ws',
      '',
      '',
    ].join('\r\n'),
  );
  const payload = Buffer.from(
    JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${token}` } }),
  );
  // A client's text frame: FIN + text, masked, the length in its shortest form.
  const mask = randomBytes(4);
  const n = payload.length;
  const header = Buffer.from(n < 126 ? [0x81, 0x80 | n] : [0x81, 0x80 | 126, n >> 8, n & 0xff]);
  socket.write(Buffer.concat([header, mask, payload.map((b, n) => b ^ mask[n % 4]!)]));
  await waitFor(() => seen.includes('connection_ack'), { what: 'connection_ack' });
  socket.removeAllListeners('data');
  socket.pause();
  return socket;
}
