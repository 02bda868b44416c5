// CONTRACT §13 and §14 at the authorization server, over real HTTPS: hostile bodies, the default scope,
// discovery's scopes, suspension revoking every token, and OAuth-shaped 429s.
import * as oc from 'openid-client';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopes } from '../../src/access/actor.js';
import {
  Browser,
  configFor,
  createClient,
  dashboardOf,
  gql,
  type OAuthService,
  OPS,
  startOAuthService,
  userTokens,
} from '../oauth/support.js';

let s: OAuthService;
beforeAll(async () => {
  s = await startOAuthService();
});
afterAll(async () => s?.close());

const form = (body: string) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body,
});

describe('hostile requests to the token endpoint', () => {
  it('a NUL in a parameter is 400 invalid_request; a body over 1 MiB is 413 with the OAuth error body', async () => {
    const c = await createClient(s, { grants: ['client_credentials'], scopes: ['cars:read'] });
    const basic = `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64')}`;
    const nul = await s.fetch('/api/oauth/token', {
      ...form('grant_type=client_credentials&scope=cars%3Aread%00'),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
    });
    expect(nul.status).toBe(400);
    expect(await nul.json()).toMatchObject({ error: 'invalid_request' });
    const inQuery = await s.fetch('/api/oauth/auth?client_id=a%00b');
    expect(inQuery.status).toBe(400);
    const big = await s.fetch(
      '/api/oauth/token',
      form(`grant_type=client_credentials&x=${'a'.repeat(2 * 1024 * 1024)}`),
    );
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: 'invalid_request' });
    // Sent in chunks, with no Content-Length to go by: the same 413, not a reset connection.
    const chunk = new TextEncoder().encode('a'.repeat(64 * 1024));
    const chunked = await s.fetch('/api/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      duplex: 'half',
      body: new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode('grant_type=client_credentials&x='));
          for (let i = 0; i < 40; i += 1) c.enqueue(chunk);
          c.close();
        },
      }),
    });
    expect(chunked.status).toBe(413);
    // The endpoint still works after all three.
    const ok = await s.fetch('/api/oauth/token', {
      ...form('grant_type=client_credentials'),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { scope: string }).scope).toBe('cars:read');
  });

  it('a NUL in the sign-in form is refused, never a 5xx', async () => {
    // On a connection of its own: a pooled one left idle by the tests above may be closed by the service's
    // keep-alive timeout just as this request goes out on it (a reset that says nothing about this request).
    const fresh = new Agent({ connect: { ca: s.service.cert } });
    try {
      const r = await fetch(`${s.origin}/api/oauth/interaction/abc/login`, {
        ...form('username=a%00b&password=x'),
        dispatcher: fresh,
      });
      expect(r.status).toBe(400);
    } finally {
      await fresh.close();
    }
  });
});

describe('discovery', () => {
  it('scopes_supported lists every scope of the catalogue', async () => {
    const d = (await (await s.fetch('/api/oauth/.well-known/openid-configuration')).json()) as {
      scopes_supported: string[];
    };
    expect(new Set(d.scopes_supported)).toEqual(new Set(scopes));
  });
});

describe('suspension', () => {
  it('revokes every token of the user; reactivating brings none back', async () => {
    const dash = await dashboardOf(s);
    const ops = (await userTokens(s, dash, dash.redirectUri, OPS, 'ops')).access_token;
    const user = {
      username: `suspended.${Date.now()}@example.com`,
      password: 'a long and unusual passphrase',
    };
    const created = await gql(
      s,
      undefined,
      'mutation($i: CreateUserAccountInput!) { createUserAccount(input: $i) { id } }',
      { i: { ...user, firstName: 'S', lastName: 'U' } },
    );
    const id = created.data?.createUserAccount.id as string;
    const app = await createClient(s, {
      grants: ['authorization_code'],
      scopes: ['account:read'],
      redirectUris: ['https://suspend.example/cb'],
      refresh: true,
    });
    const t = await userTokens(s, app, 'https://suspend.example/cb', user, 'account:read', new Browser(s));
    expect((await gql(s, t.access_token, '{ me { id } }')).status).toBe(200);
    await gql(s, ops, 'mutation($id: UUID!) { suspendUserAccount(id: $id) { id } }', { id });
    expect((await gql(s, t.access_token, '{ me { id } }')).status).toBe(401);
    await gql(s, ops, 'mutation($id: UUID!) { reactivateUserAccount(id: $id) { id } }', { id });
    expect((await gql(s, t.access_token, '{ me { id } }')).status).toBe(401);
    const config = await configFor(s, app);
    await expect(oc.refreshTokenGrant(config, t.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    // The same through REST's PATCH of the account's Status.
    const again = await userTokens(
      s,
      app,
      'https://suspend.example/cb',
      user,
      'account:read',
      new Browser(s),
    );
    const patch = await s.fetch(`/api/useraccounts/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${ops}`, 'content-type': 'application/json' },
      body: JSON.stringify({ Status: 'Suspended' }),
    });
    expect(patch.status).toBe(202);
    await s.fetch(`/api/useraccounts/${id}/reactivate`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ops}` },
    });
    expect((await gql(s, again.access_token, '{ me { id } }')).status).toBe(401);
  });
});

describe('429 at the authorization server', () => {
  let limited: OAuthService;
  beforeAll(async () => {
    limited = await startOAuthService({
      env: { RATE_LIMIT_AUTH_PER_MINUTE: '2', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '3' },
    });
  });
  afterAll(async () => limited?.close());

  it('token, introspection and revocation answer slow_down with Retry-After; the sign-in page says it in HTML', async () => {
    let last: Awaited<ReturnType<OAuthService['fetch']>> | undefined;
    for (let i = 0; i < 3; i += 1)
      last = await limited.fetch('/api/oauth/token', form('grant_type=client_credentials'));
    expect(last!.status).toBe(429);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await last!.json()).toMatchObject({ error: 'slow_down' });
    for (const path of ['/api/oauth/token/introspection', '/api/oauth/token/revocation']) {
      let r: Awaited<ReturnType<OAuthService['fetch']>> | undefined;
      for (let i = 0; i < 4; i += 1) r = await limited.fetch(path, form('token=x'));
      expect(r!.status, path).toBe(429);
      expect(r!.headers.get('retry-after'), path).toMatch(/^\d+$/);
      expect(await r!.json(), path).toMatchObject({ error: 'slow_down' });
    }
    const page = await limited.fetch('/api/oauth/interaction/abc/login', form('username=a&password=b'));
    expect(page.status).toBe(429);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('Too many requests');
    // Sign-up keeps the REST body.
    let up: Awaited<ReturnType<OAuthService['fetch']>> | undefined;
    for (let i = 0; i < 3; i += 1)
      up = await limited.fetch('/api/useraccounts', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
    expect(up!.status).toBe(429);
    expect(((await up!.json()) as { ResponseStatus: { ErrorCode: string } }).ResponseStatus.ErrorCode).toBe(
      'TooManyRequests',
    );
  });
});
