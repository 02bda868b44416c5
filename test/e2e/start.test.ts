// `npm start` as a user runs it: HTTPS on embedded PostgreSQL by default, the HTTP refusal, restarts that keep
// data and certificate, graceful shutdown, and several instances migrating one fresh database at once.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { fetch } from 'undici';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { migrations } from '../../src/db/migrations/index.js';
import { agentFor, graphql, requestsSeen, startProcess, waitArrived, waitReady } from '../support/process.js';

// Each case starts one or two real service processes (some with an embedded PostgreSQL): on a busy machine that
// alone can take tens of seconds, more than the suite's default per test.
const PROCESS_TIMEOUT = 120_000;

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'carshare-start-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const SIGN_UP = `mutation($u: String!) { createUserAccount(input: { username: $u, password: "a long and unusual passphrase",
  firstName: "Kept", lastName: "Across" }) { id } }`;

describe('npm start without DATABASE_URL (embedded PostgreSQL)', () => {
  it(
    'serves HTTPS, refuses plain HTTP with 403 HttpsRequired, and keeps data and certificate across a restart',
    async () => {
      const dataDir = tempDir();
      const first = await startProcess({
        DATA_DIR: dataDir,
        OPS_EMAIL: 'ops@example.com',
        OPS_PASSWORD: 'operator passphrase 1',
      });
      try {
        await waitReady(first, dataDir);
        const health = await fetch(`https://localhost:${first.port}/healthz`, {
          dispatcher: agentFor(dataDir),
        });
        expect(health.status).toBe(200);
        expect(health.headers.get('request-id')).toMatch(/\S+/);

        const plain = await fetch(`http://127.0.0.1:${first.httpPort}/anything?x=1`, {
          method: 'POST',
          body: 'x',
        });
        expect(plain.status).toBe(403);
        expect(plain.headers.get('location')).toBeNull();
        expect(await plain.json()).toMatchObject({ ResponseStatus: { ErrorCode: 'HttpsRequired' } });

        const created = await graphql(first, dataDir, SIGN_UP, { u: 'kept@example.com' });
        expect(created.errors).toBeUndefined();
        // One structured JSON log line per request, carrying its Request-Id.
        const rid = health.headers.get('request-id')!;
        const line = first
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l))
          .find((l) => l.requestId === rid);
        expect(line).toMatchObject({ msg: 'request', method: 'GET', path: '/healthz', status: 200 });
        expect(typeof line.durationMs).toBe('number');
      } finally {
        expect(await first.stop('SIGTERM')).toBe(0);
      }
      expect(first.output()).toContain('"msg":"stopped"');
      const cert = readFileSync(join(dataDir, 'tls', 'localhost.crt'), 'utf8');

      const second = await startProcess({ DATA_DIR: dataDir });
      try {
        await waitReady(second, dataDir);
        expect(readFileSync(join(dataDir, 'tls', 'localhost.crt'), 'utf8')).toBe(cert);
        const again = await graphql(second, dataDir, SIGN_UP, { u: 'kept@example.com' });
        expect(again.errors?.[0]?.extensions?.code).toBe('AlreadyExists');
      } finally {
        expect(await second.stop('SIGINT')).toBe(0);
      }
    },
    PROCESS_TIMEOUT,
  );

  it(
    'prints the generated operator password once, on the first start only',
    async () => {
      const dataDir = tempDir();
      const first = await startProcess({ DATA_DIR: dataDir });
      await waitReady(first, dataDir);
      await first.stop();
      expect(first.output()).toMatch(/username: ops@carshare\.local\n\s+password: \S{16,}/);
      const second = await startProcess({ DATA_DIR: dataDir });
      await waitReady(second, dataDir);
      await second.stop();
      expect(second.output()).not.toContain('password:');
    },
    PROCESS_TIMEOUT,
  );

  it(
    'on SIGTERM finishes the requests in flight, then exits 0',
    async () => {
      const dataDir = tempDir();
      const p = await startProcess({
        DATA_DIR: dataDir,
        OPS_EMAIL: 'ops@example.com',
        OPS_PASSWORD: 'operator passphrase 1',
      });
      await waitReady(p, dataDir);
      const agent = agentFor(dataDir);
      const before = (await requestsSeen(p.port, agent, 'POST')).answered;
      // Sign-ups hash passwords (tens of milliseconds each), so several are still running when the signal lands;
      // the signal waits until the service has received all six (its own count), not for a guessed moment.
      const inFlight = Array.from({ length: 6 }, (_, i) =>
        graphql(p, dataDir, SIGN_UP, { u: `inflight${i}@example.com` }),
      );
      await waitArrived(p.port, agent, 'POST', before, 6);
      const code = p.stop('SIGTERM');
      const results = await Promise.all(inFlight);
      for (const r of results) expect(r.data?.createUserAccount?.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(await code).toBe(0);
    },
    PROCESS_TIMEOUT,
  );

  it('refuses to start on a bad configuration value, naming the variable', async () => {
    const p = await startProcess({ DATA_DIR: tempDir(), PORT: 'eighty' });
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain('PORT');
  });
});

describe('npm start with DATABASE_URL', () => {
  it(
    'two processes started together on a fresh database both become ready; the schema is migrated once',
    async () => {
      const server = new URL(inject('databaseUrl'));
      const name = `carshare_twin_${Date.now().toString(36)}`;
      server.pathname = '/postgres';
      const admin = new pg.Client({ connectionString: server.toString() });
      admin.on('error', () => undefined);
      await admin.connect();
      await admin.query(`create database ${name}`);
      const url = new URL(server);
      url.pathname = `/${name}`;
      const env = {
        DATABASE_URL: url.toString(),
        OPS_EMAIL: 'twin@example.com',
        OPS_PASSWORD: 'operator passphrase 2',
      };
      const [a, b] = await Promise.all([
        startProcess({ ...env, DATA_DIR: tempDir() }),
        startProcess({ ...env, DATA_DIR: tempDir() }),
      ]);
      try {
        await Promise.all([waitReady(a, dirs.at(-2)!), waitReady(b, dirs.at(-1)!)]);
        const db = new pg.Client({ connectionString: url.toString() });
        db.on('error', () => undefined); // the database is dropped with force below
        await db.connect();
        try {
          const applied = (await db.query('select name from mikro_orm_migrations')).rows.map(
            (r) => r.name as string,
          );
          // Each migration applied exactly once, whichever instance won the lock.
          expect(new Set(applied).size).toBe(applied.length);
          expect(applied).toEqual(expect.arrayContaining(migrations.map((m) => m.name)));
          const ops = await db.query(`select count(*)::int as n from user_account where roles @> '["ops"]'`);
          expect(ops.rows[0].n).toBe(1);
        } finally {
          await db.end();
        }
      } finally {
        await Promise.all([a.stop(), b.stop()]);
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      }
    },
    PROCESS_TIMEOUT,
  );
});
