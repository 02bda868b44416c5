// Discovery and the client credentials grant, driven by openid-client over HTTPS against the real service.
import * as oc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFor, createClient, gql, type OAuthService, oauthError, startOAuthService } from './support.js';

let s: OAuthService;
beforeAll(async () => {
  s = await startOAuthService();
});
afterAll(async () => s?.close());

const REPORTER = ['users:read', 'verifications:read', 'feedback:read'];

describe('discovery', () => {
  it('publishes the endpoints of CONTRACT §9 under the issuer, PKCE S256 only', async () => {
    const r = await s.fetch('/api/oauth/.well-known/openid-configuration');
    expect(r.status).toBe(200);
    const d = (await r.json()) as Record<string, unknown>;
    expect(d).toMatchObject({
      issuer: s.issuer,
      authorization_endpoint: `${s.issuer}/auth`,
      token_endpoint: `${s.issuer}/token`,
      introspection_endpoint: `${s.issuer}/token/introspection`,
      revocation_endpoint: `${s.issuer}/token/revocation`,
      jwks_uri: `${s.issuer}/jwks`,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(new Set(d.grant_types_supported as string[])).toEqual(
      new Set(['authorization_code', 'client_credentials', 'refresh_token']),
    );
    expect(d.response_types_supported).toEqual(['code']);
    const jwks = (await (await s.fetch('/api/oauth/jwks')).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys.length).toBeGreaterThan(0);
    // Public keys only.
    for (const k of jwks.keys) expect(k.d).toBeUndefined();
  });

  it('openid-client discovers it', async () => {
    const c = await createClient(s, { grants: ['client_credentials'], scopes: REPORTER });
    const config = await configFor(s, c);
    expect(config.serverMetadata().issuer).toBe(s.issuer);
  });
});

describe('client credentials', () => {
  it('issues an opaque 15-minute token for the allowed scopes, without a refresh token, usable at the API', async () => {
    const c = await createClient(s, { grants: ['client_credentials'], scopes: REPORTER });
    const config = await configFor(s, c);
    const t = await oc.clientCredentialsGrant(config, { scope: REPORTER.join(' ') });
    expect(t.token_type).toBe('bearer');
    expect(t.expires_in).toBe(900);
    expect(t.refresh_token).toBeUndefined();
    expect(t.scope?.split(' ').sort()).toEqual([...REPORTER].sort());
    expect(t.access_token.split('.')).toHaveLength(1);
    const r = await gql(s, t.access_token, '{ userAccounts { total } }');
    expect(r.errors).toBeUndefined();
    expect(r.data?.userAccounts.total).toBeGreaterThan(0);
  });

  it('issues a subset of the allowed scopes when asked, and the API holds it to that subset', async () => {
    const c = await createClient(s, { grants: ['client_credentials'], scopes: REPORTER });
    const t = await oc.clientCredentialsGrant(await configFor(s, c), { scope: 'feedback:read' });
    expect(t.scope).toBe('feedback:read');
    const r = await gql(s, t.access_token, '{ userAccounts { total } }');
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toBe(
      'Bearer realm="carshare", error="insufficient_scope", scope="users:read"',
    );
  });

  it('refuses a scope the app is not allowed with invalid_scope; no scope means every allowed API scope', async () => {
    const c = await createClient(s, { grants: ['client_credentials'], scopes: REPORTER });
    const config = await configFor(s, c);
    expect(
      await oauthError(oc.clientCredentialsGrant(config, { scope: 'feedback:read users:write' })),
    ).toEqual({
      error: 'invalid_scope',
      status: 400,
    });
    expect((await oauthError(oc.clientCredentialsGrant(config, { scope: 'openid' }))).error).toBe(
      'invalid_scope',
    );
    // CONTRACT §14: without `scope`, the token holds every API scope of the app's AllowedScopes.
    const all = await oc.clientCredentialsGrant(config);
    expect(new Set(all.scope?.split(' '))).toEqual(new Set(REPORTER));
  });

  it('refuses a wrong secret and an unknown client with 401 invalid_client', async () => {
    const c = await createClient(s, { grants: ['client_credentials'], scopes: REPORTER });
    const wrong = await configFor(s, { clientId: c.clientId, clientSecret: `${c.clientSecret}x` });
    expect(await oauthError(oc.clientCredentialsGrant(wrong, { scope: 'feedback:read' }))).toEqual({
      error: 'invalid_client',
      status: 401,
    });
    const unknown = await configFor(s, { clientId: 'ca_nobody', clientSecret: c.clientSecret });
    expect(await oauthError(oc.clientCredentialsGrant(unknown, { scope: 'feedback:read' }))).toEqual({
      error: 'invalid_client',
      status: 401,
    });
  });

  it('refuses an app that was not given the client_credentials grant', async () => {
    const c = await createClient(s, {
      grants: ['authorization_code'],
      scopes: REPORTER,
      redirectUris: ['https://app.example/cb'],
    });
    const e = await oauthError(oc.clientCredentialsGrant(await configFor(s, c), { scope: 'feedback:read' }));
    // oidc-provider answers invalid_request ("requested grant type is not allowed for this client").
    expect(e.status).toBe(400);
    expect(['unauthorized_client', 'invalid_request']).toContain(e.error);
  });

  it('answers every other grant type unsupported_grant_type', async () => {
    const c = await createClient(s, { grants: ['client_credentials'], scopes: REPORTER });
    const r = await s.fetch('/api/oauth/token', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64')}`,
      },
      body: 'grant_type=password&username=a&password=b',
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: string }).error).toBe('unsupported_grant_type');
  });
});

describe('introspection and revocation', () => {
  it('introspects a token for its own client only', async () => {
    const a = await createClient(s, { grants: ['client_credentials'], scopes: REPORTER });
    const b = await createClient(s, { grants: ['client_credentials'], scopes: REPORTER });
    const t = await oc.clientCredentialsGrant(await configFor(s, a), { scope: 'feedback:read' });
    const own = await oc.tokenIntrospection(await configFor(s, a), t.access_token);
    expect(own).toMatchObject({ active: true, client_id: a.clientId, scope: 'feedback:read' });
    const other = await oc.tokenIntrospection(await configFor(s, b), t.access_token);
    expect(other.active).toBe(false);
  });

  it('revokes a token at once: the API answers 401 invalid_token', async () => {
    const a = await createClient(s, { grants: ['client_credentials'], scopes: REPORTER });
    const config = await configFor(s, a);
    const t = await oc.clientCredentialsGrant(config, { scope: 'users:read' });
    expect((await gql(s, t.access_token, '{ userAccounts { total } }')).status).toBe(200);
    await oc.tokenRevocation(config, t.access_token);
    const r = await gql(s, t.access_token, '{ userAccounts { total } }');
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="carshare", error="invalid_token"/);
  });
});
