// The HTTP edge: request ids on every response, JSON errors, the proxy rule, the plain-HTTP refusal.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CROWDED_AT } from '../../src/http/crowding.js';
import { startTestService, type TestService } from '../support/service.js';

let s: TestService;
let proxied: TestService;
beforeAll(async () => {
  s = await startTestService();
  proxied = await startTestService({ env: { TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await s.close();
  await proxied.close();
});

describe('the HTTP edge', () => {
  it('gives every response a Request-Id, echoing a sane one the caller sent', async () => {
    const a = await s.fetch('/healthz');
    expect(a.headers.get('request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const b = await s.fetch('/healthz', { headers: { 'Request-Id': 'trace-abc.123' } });
    expect(b.headers.get('request-id')).toBe('trace-abc.123');
    const c = await s.fetch('/healthz', { headers: { 'Request-Id': 'bad id with spaces' } });
    expect(c.headers.get('request-id')).not.toBe('bad id with spaces');
  });

  it('listens with room for 4,096 connections waiting to be accepted on both ports (CONTRACT §28 "Overload")', () => {
    // A listening socket's backlog as the kernel holds it (`ss`: Send-Q of a LISTEN row). Node's default of 511
    // overflowed under 1,000 clients at once, and each dropped handshake waited 1-7 s to be retried.
    const backlogOf = (port: number): number | undefined => {
      const row = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' })
        .trim()
        .split('\n')[0];
      const sendQ = row?.trim().split(/\s+/)[2];
      return sendQ === undefined ? undefined : Number(sendQ);
    };
    const cap = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
    expect(backlogOf(s.service.port)).toBe(Math.min(4096, cap));
    expect(backlogOf(s.service.httpPort)).toBe(Math.min(4096, cap));
  });

  it('closes each answered connection while more than 256 are open, and keeps them alive again after (CONTRACT §28 "Overload")', async () => {
    // Connections that only connect: the service counts them from the TCP accept, handshake or not.
    const crowd = await Promise.all(
      Array.from(
        { length: CROWDED_AT + 4 },
        () =>
          new Promise<Socket>((ok, fail) => {
            const socket = connect(s.service.port, '127.0.0.1', () => ok(socket));
            socket.on('error', fail);
          }),
      ),
    );
    const connectionHeader = async () => (await s.fetch('/healthz')).headers.get('connection');
    try {
      // The service sees the last of them accepted a moment after the client does.
      await expect.poll(connectionHeader, { timeout: 5_000 }).toBe('close');
    } finally {
      for (const socket of crowd) socket.destroy();
    }
    await expect.poll(connectionHeader, { timeout: 5_000 }).toBe('keep-alive');
  });

  it('answers an unknown route 404 with a ResponseStatus body and a Request-Id', async () => {
    const r = await s.fetch('/nowhere');
    expect(r.status).toBe(404);
    expect(r.headers.get('request-id')).toBeTruthy();
    expect(await r.json()).toMatchObject({ ResponseStatus: { ErrorCode: 'NotFound', Errors: [] } });
  });

  it('reports readiness with the database and migrations', async () => {
    const r = await s.fetch('/readyz');
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ Status: 'Ready', PendingMigrations: 0 });
  });

  it('refuses plain HTTP on every path and verb with 403 HttpsRequired, never a redirect', async () => {
    for (const [method, path] of [
      ['GET', '/healthz'],
      ['POST', '/graphql'],
      ['DELETE', '/api/cars/1'],
    ] as const) {
      const r = await fetch(`http://127.0.0.1:${s.service.httpPort}${path}`, { method, redirect: 'manual' });
      expect(r.status).toBe(403);
      expect(r.headers.get('location')).toBeNull();
      expect(r.headers.get('request-id')).toBeTruthy();
      expect(await r.json()).toEqual({
        ResponseStatus: {
          ErrorCode: 'HttpsRequired',
          // It names where the service is.
          Message: `This service is only available over HTTPS, at https://localhost:${s.service.port}`,
          Errors: [],
          Meta: { Help: `${s.origin}/docs#error-HttpsRequired` },
        },
      });
    }
  });

  it('behind a TLS-terminating proxy (TRUST_PROXY), refuses requests that reached the proxy over plain HTTP', async () => {
    const refused = await proxied.fetch('/healthz', { headers: { 'X-Forwarded-Proto': 'http' } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      ResponseStatus: {
        ErrorCode: 'HttpsRequired',
        Message: `This service is only available over HTTPS, at https://localhost:${proxied.service.port}`,
      },
    });
    expect((await proxied.fetch('/healthz', { headers: { 'X-Forwarded-Proto': 'https' } })).status).toBe(200);
    // Without TRUST_PROXY the header is not believed.
    expect((await s.fetch('/healthz', { headers: { 'X-Forwarded-Proto': 'http' } })).status).toBe(200);
  });

  it("answers a /graphql body that is not JSON in GraphQL's error shape", async () => {
    const r = await s.fetch('/graphql', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"query": "{ __typename }"',
    });
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({
      errors: [{ message: expect.stringContaining('not valid JSON'), extensions: { code: 'InvalidFormat' } }],
    });
  });

  it('answers a JSON body sent as a form with a 400 that says which Content-Type to send', async () => {
    const r = await s.fetch('/api/cars', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: '{"Make":"Volkswagen","Model":"Golf"}',
    });
    expect(r.status).toBe(400);
    const { ResponseStatus } = (await r.json()) as { ResponseStatus: { ErrorCode: string; Message: string } };
    expect(ResponseStatus.ErrorCode).toBe('InvalidFormat');
    expect(ResponseStatus.Message).toContain('Content-Type: application/json');
  });

  it('serves GraphQL over HTTPS with field errors', async () => {
    const r = await s.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ userAccounts(limit: 5000) { total } }' }),
    });
    const body = (await r.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors[0]?.extensions.code).toBe('Unauthorized');
  });
});
