// The whole service in-process on loopback HTTPS (random ports), on the test database, for black-box tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Agent, fetch, type RequestInit } from 'undici';
import { inject } from 'vitest';
import type { Authenticator } from '../../src/access/authenticate.js';
import { loadConfig } from '../../src/config.js';
import { type Service, type ServiceOptions, startService } from '../../src/service.js';
import type { Clock } from '../../src/shared/clock.js';
import { freePort } from './port.js';

export interface TestService {
  service: Service;
  origin: string;
  agent: Agent;
  /** fetch against the service, trusting its self-signed certificate. */
  fetch(path: string, init?: RequestInit): ReturnType<typeof fetch>;
  close(): Promise<void>;
}

export async function startTestService(
  opts: {
    env?: Record<string, string>;
    authenticator?: Authenticator;
    clock?: Clock;
    /** Receives the service's log lines, parsed, from debug up (silent when absent). */
    logs?: Record<string, unknown>[];
    /** Webhook delivery workers (off unless given), e.g. `{ pollMs: 50 }`. */
    webhooks?: ServiceOptions['webhooks'];
  } = {},
): Promise<TestService> {
  const logs = opts.logs;
  const dataDir = mkdtempSync(join(tmpdir(), 'carshare-svc-'));
  // The port is chosen first so PUBLIC_URL (the OAuth issuer, Location headers) names the real origin.
  const port = await freePort();
  const config = loadConfig({
    PORT: String(port),
    PUBLIC_URL: `https://localhost:${port}`,
    HTTP_PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: inject('databaseUrl'),
    LOG_LEVEL: 'silent',
    OPS_EMAIL: 'ops@example.com',
    OPS_PASSWORD: 'operator passphrase for tests',
    // Suites make many calls a minute; the rate-limit tests set their own limits.
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000',
    RATE_LIMIT_AUTH_PER_MINUTE: '1000000',
    ...opts.env,
  });
  const service = await startService({
    config,
    log: logs
      ? pino(
          { level: 'debug' },
          new Writable({
            write(chunk, _enc, done) {
              for (const line of String(chunk).split('\n')) if (line.trim()) logs.push(JSON.parse(line));
              done();
            },
          }),
        )
      : pino({ level: 'silent' }),
    timers: false,
    ...(opts.authenticator ? { authenticator: opts.authenticator } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.webhooks ? { webhooks: opts.webhooks } : {}),
  });
  const agent = new Agent({ connect: { ca: service.cert } });
  const origin = `https://localhost:${service.port}`;
  return {
    service,
    origin,
    agent,
    fetch: (path, init = {}) => fetch(`${origin}${path}`, { ...init, dispatcher: agent }),
    async close() {
      await service.stop();
      await agent.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
