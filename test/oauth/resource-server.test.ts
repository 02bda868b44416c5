// The resource server on real tokens: RFC 6750 answers, expiry to the second, and revocation that takes effect at
// once (suspended users, suspended and deleted apps).
import * as oc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait.js';
import {
  configFor,
  createClient,
  gql,
  type OAuthService,
  OPS,
  oauthError,
  signUp,
  startOAuthService,
  userTokens,
} from './support.js';

let s: OAuthService;
beforeAll(async () => {
  s = await startOAuthService();
});
afterAll(async () => s?.close());

const REDIRECT = 'https://app.example/callback';
const opsApp = () =>
  createClient(s, {
    grants: ['authorization_code'],
    scopes: ['ops', 'account:read', 'users:write', 'users:read'],
    redirectUris: [REDIRECT],
  });
const opsToken = async () =>
  (await userTokens(s, await opsApp(), REDIRECT, OPS, 'ops account:read')).access_token;

describe('RFC 6750 answers', () => {
  it('no token where one is needed: 401 with the bare Bearer challenge', async () => {
    const r = await gql(s, undefined, '{ me { id } }');
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer realm="carshare"');
    expect(r.errors?.[0].extensions.code).toBe('Unauthorized');
  });

  it('a token nobody issued: 401 invalid_token', async () => {
    const r = await gql(s, 'not-a-real-token-at-all', '{ _ping }');
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="carshare", error="invalid_token"/);
    expect(r.errors?.[0].extensions.code).toBe('Unauthorized');
  });

  it('a token without the scope: 403 insufficient_scope naming it', async () => {
    const user = await signUp(s);
    const app = await createClient(s, {
      grants: ['authorization_code'],
      scopes: ['account:read', 'cars:read'],
      redirectUris: [REDIRECT],
    });
    const t = await userTokens(s, app, REDIRECT, user, 'cars:read');
    const r = await gql(s, t.access_token, '{ me { id } }');
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toBe(
      'Bearer realm="carshare", error="insufficient_scope", scope="account:read"',
    );
    expect(r.errors?.[0].extensions.code).toBe('Forbidden');
  });

  it('only the Authorization header carries a token: a query parameter is ignored', async () => {
    const c = await createClient(s, { grants: ['client_credentials'], scopes: ['users:read'] });
    const t = await oc.clientCredentialsGrant(await configFor(s, c), { scope: 'users:read' });
    const r = await s.fetch(`/graphql?access_token=${t.access_token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ userAccounts { total } }' }),
    });
    expect(r.status).toBe(401);
  });
});

describe('expiry', () => {
  it('refuses a token the second it expires (no clock tolerance)', async () => {
    const short = await startOAuthService({ env: { ACCESS_TOKEN_TTL_SECONDS: '2' } });
    try {
      const c = await createClient(short, { grants: ['client_credentials'], scopes: ['users:read'] });
      const t = await oc.clientCredentialsGrant(await configFor(short, c), { scope: 'users:read' });
      expect(t.expires_in).toBe(2);
      const issued = Date.now();
      expect((await gql(short, t.access_token, '{ userAccounts { total } }')).status).toBe(200);
      // Expiry is wall-clock time in the database: ask until refused, which must be within moments of the
      // two seconds (a clock tolerance would show as a timeout here).
      const r = await waitFor(
        async () => {
          const x = await gql(short, t.access_token, '{ userAccounts { total } }');
          return x.status === 401 ? x : undefined;
        },
        { timeoutMs: 2000 + 1000 - (Date.now() - issued), everyMs: 100, what: 'the token to expire' },
      );
      expect(r.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    } finally {
      await short.close();
    }
  });
});

describe('revocation takes effect at once', () => {
  it('a suspended user’s tokens stop working, and reactivation brings none back (CONTRACT §14)', async () => {
    const user = await signUp(s);
    const app = await createClient(s, {
      grants: ['authorization_code'],
      scopes: ['account:read'],
      redirectUris: [REDIRECT],
      refresh: true,
    });
    const t = await userTokens(s, app, REDIRECT, user, 'account:read');
    expect((await gql(s, t.access_token, '{ me { id } }')).data?.me.id).toBe(user.id);
    const ops = await opsToken();
    const susp = await gql(s, ops, 'mutation($id: UUID!) { suspendUserAccount(id: $id) { status } }', {
      id: user.id,
    });
    expect(susp.data?.suspendUserAccount.status).toBe('Suspended');
    const r = await gql(s, t.access_token, '{ me { id } }');
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    // Nor can it be refreshed while suspended.
    expect((await oauthError(oc.refreshTokenGrant(await configFor(s, app), t.refresh_token!))).error).toBe(
      'invalid_grant',
    );
    await gql(s, ops, 'mutation($id: UUID!) { reactivateUserAccount(id: $id) { status } }', { id: user.id });
    expect((await gql(s, t.access_token, '{ me { id } }')).status).toBe(401);
    // Signing in again gives working tokens.
    const again = await userTokens(s, app, REDIRECT, user, 'account:read');
    expect((await gql(s, again.access_token, '{ me { id } }')).data?.me.id).toBe(user.id);
  });

  it('a suspended app: new requests are invalid_client, its tokens are 401 at once; reactivated, it can ask again', async () => {
    const c = await createClient(s, { grants: ['client_credentials'], scopes: ['users:read'] });
    const config = await configFor(s, c);
    const t = await oc.clientCredentialsGrant(config, { scope: 'users:read' });
    expect((await gql(s, t.access_token, '{ userAccounts { total } }')).status).toBe(200);
    const ops = await opsToken();
    const r = await gql(s, ops, 'mutation($id: UUID!) { suspendClientApplication(id: $id) { status } }', {
      id: c.id,
    });
    expect(r.data?.suspendClientApplication.status).toBe('Suspended');
    expect((await gql(s, t.access_token, '{ userAccounts { total } }')).status).toBe(401);
    expect(await oauthError(oc.clientCredentialsGrant(config, { scope: 'users:read' }))).toEqual({
      error: 'invalid_client',
      status: 401,
    });
    await gql(s, ops, 'mutation($id: UUID!) { reactivateClientApplication(id: $id) { status } }', {
      id: c.id,
    });
    // Revoked tokens stay revoked; new ones can be had.
    expect((await gql(s, t.access_token, '{ userAccounts { total } }')).status).toBe(401);
    const again = await oc.clientCredentialsGrant(config, { scope: 'users:read' });
    expect((await gql(s, again.access_token, '{ userAccounts { total } }')).status).toBe(200);
  });

  it('a deleted app: its user tokens are 401 at once and its refresh tokens are refused', async () => {
    const user = await signUp(s);
    const app = await createClient(s, {
      grants: ['authorization_code'],
      scopes: ['account:read'],
      redirectUris: [REDIRECT],
      refresh: true,
    });
    const config = await configFor(s, app);
    const t = await userTokens(s, app, REDIRECT, user, 'account:read');
    expect((await gql(s, t.access_token, '{ me { id } }')).status).toBe(200);
    const ops = await opsToken();
    const d = await gql(s, ops, 'mutation($id: UUID!) { deleteClientApplication(id: $id) { id } }', {
      id: app.id,
    });
    expect(d.data?.deleteClientApplication.id).toBe(app.id);
    expect((await gql(s, t.access_token, '{ me { id } }')).status).toBe(401);
    expect((await oauthError(oc.refreshTokenGrant(config, t.refresh_token!))).error).toBe('invalid_client');
    const rows = await s.sql<{ n: string }>('select count(*) as n from oauth_model where client_id = ?', [
      app.clientId,
    ]);
    expect(Number(rows[0]?.n)).toBe(0);
  });
});
