// `npm run webhooks -- listen` (CONTRACT §27) as a developer runs it beside a running service: events forwarded to a
// loopback receiver as signed deliveries that `standardwebhooks` verifies with the secret of its first line, with the
// body a real delivery of the same event carries; the application it registered for itself is gone once stopped.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createClientFromCli } from '../../src/clientapps/client-application.cli.js';
import { deploymentSql } from '../../src/db/scope.js';
import { eventNames } from '../../src/events/events.js';
import { selfSignedCertPath } from '../../src/tls.js';
import { defaultCarShareId } from '../support/scope.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitFor } from '../support/wait.js';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';

const root = resolve(import.meta.dirname, '../..');

let s: TestService;
let dataDir: string;
const receivers: Receiver[] = [];
beforeAll(async () => {
  s = await startTestService({
    env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    webhooks: { pollMs: 50, retryScheduleMs: [200] },
  });
  // The command's data folder holds the certificate it trusts, as a default `npm start`'s does.
  dataDir = mkdtempSync(join(tmpdir(), 'carshare-listen-'));
  const cert = selfSignedCertPath(dataDir);
  mkdirSync(dirname(cert), { recursive: true });
  writeFileSync(cert, s.service.cert);
}, 60_000);
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await s?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function webhooks(...args: string[]): Run {
  const child = spawn('npm', ['run', '--silent', 'webhooks', '--', ...args], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      DATABASE_URL: inject('databaseUrl'),
      PUBLIC_URL: s.origin,
      DATA_DIR: dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += String(d);
  });
  child.stderr?.on('data', (d) => {
    stderr += String(d);
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

async function token(scopes: string): Promise<string> {
  const c = await createClientFromCli(
    s.service.db,
    [...['--name', `Listen test ${scopes}`, '--grant', 'client_credentials', '--scopes', scopes]],
    defaultCarShareId(),
  );
  const r = await s.fetch('/api/oauth/token', {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${c.ClientId}:${c.ClientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: scopes }).toString(),
  });
  return ((await r.json()) as { access_token: string }).access_token;
}

const signUp = (n: number) =>
  s.fetch('/api/useraccounts', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      Username: `listen-${n}-${Date.now()}@example.com`,
      Password: 'a long passphrase for tests',
      FirstName: 'Lis',
      LastName: 'Tener',
    }),
  });

const listenApps = async () =>
  (
    await deploymentSql<{ n: number }>(
      s.service.db.orm,
      `select count(*)::int as n from client_application where name like 'webhooks listen%'`,
    )
  )[0]!.n;

describe('npm run webhooks -- listen', () => {
  it('forwards events to a loopback URL as signed deliveries with a real delivery’s body, and cleans up on Ctrl-C', async () => {
    const local = await receiver();
    const hooked = await receiver();
    // A real subscription to the same event, for the body a delivery carries.
    const sub = await s.fetch('/api/webhooks/subscriptions', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await token('webhooks:write')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ Name: 'Listen comparison', Events: ['useraccount_create'], Url: hooked.url }),
    });
    expect(sub.status, await sub.clone().text()).toBe(201);

    const run = webhooks('listen', '--forward-to', `${local.url}/hook`, '--events', 'useraccount_create');
    try {
      await waitFor(() => run.stdout().includes('\n') || run.child.exitCode !== null, {
        timeoutMs: 170_000,
        what: 'the first line of the command',
      });
      const first = run.stdout().split('\n')[0]!;
      const secret = /whsec_[A-Za-z0-9+/=]+/.exec(first)?.[0];
      expect(secret, `${run.stdout()}\n${run.stderr()}`).toBeDefined();
      expect(await listenApps()).toBe(1);

      // Events raised after the subscription is live reach the receiver; sign-ups until one has.
      let n = 0;
      await waitFor(
        async () => {
          if (local.requests.length > 0) return true;
          expect((await signUp(n++)).status).toBe(201);
          return false;
        },
        { timeoutMs: 30_000, everyMs: 500, what: 'a forwarded event' },
      );
      const got = local.requests[0]!;
      expect(got.path).toBe('/hook');
      expect(got.headers['x-webhook-event']).toBe('useraccount_create');
      expect(got.headers['content-type']).toBe('application/json');
      expect(got.headers['user-agent']).toMatch(/^Carshare-Webhooks\//);
      expect(got.headers['webhook-id']).toMatch(/^[0-9a-f]{32}$/);
      expect(got.headers['x-webhook-delivery']).toBe(got.headers['webhook-id']);
      // What a receiver does with the printed secret: the library's verification passes.
      const verified = new Webhook(secret!).verify(got.body, got.headers as Record<string, string>);
      expect(verified).toMatchObject({ Name: 'useraccount_create' });
      // The body is byte for byte what the delivery of the same event carries.
      const id = (JSON.parse(got.body) as { Id: string }).Id;
      await waitFor(() => hooked.requests.some((r) => JSON.parse(r.body).Id === id), {
        timeoutMs: 20_000,
        what: 'the real delivery of that event',
      });
      expect(got.body).toBe(hooked.requests.find((r) => JSON.parse(r.body).Id === id)!.body);
      // One line per event with the receiver's answer.
      await waitFor(() => /useraccount_create\s+[0-9a-f]{32}\s+→ 200/.test(run.stdout()), {
        timeoutMs: 10_000,
        what: 'the line of the forwarded event',
      });
    } finally {
      run.child.kill('SIGINT');
    }
    expect(await run.exited).toBe(0);
    expect(await listenApps()).toBe(0);
  }, 240_000);

  it('prints the usage and exits 2 without --forward-to; refuses an unknown event naming --events, exit 1', async () => {
    const none = webhooks('listen');
    expect(await none.exited).toBe(2);
    expect(none.stderr()).toContain('npm run webhooks -- listen --forward-to URL');
    const bad = webhooks('listen', '--forward-to', 'http://127.0.0.1:9/hook', '--events', 'car_teleport');
    expect(await bad.exited).toBe(1);
    const body = JSON.parse(bad.stderr().trim());
    expect(body.Errors[0]).toMatchObject({ ErrorCode: 'InvalidValue', FieldName: '--events' });
    expect(body.Errors[0].Meta.Allowed).toEqual([...eventNames]);
  }, 240_000);
});
