// The platform API with real tokens of the default car share's authorization server (CONTRACT §21, §22): a client
// application allowed `platform` (client credentials) and a person with role `platform` (authorization code) use it;
// an operator's token is refused, and the same tokens find no platform API at another car share's host.
import * as oc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFor, gql, type OAuthService, userTokens } from '../oauth/support.js';
import { startTwoCarShares, type TwoCarShares } from '../oauth/two-car-shares.js';

let t: TwoCarShares;
beforeAll(async () => {
  t = await startTwoCarShares();
});
afterAll(async () => t?.close());

const REDIRECT = 'https://platform-console.example/callback';

async function call(at: OAuthService, token: string, method: string, path: string, body?: unknown) {
  const r = await at.fetch(path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

describe('the platform API with the default car share’s own tokens', () => {
  it('serves a client application allowed platform, and nobody at another host', async () => {
    const app = await t.clientIn(t.aId, { grants: ['client_credentials'], scopes: ['platform'] });
    const { access_token } = await oc.clientCredentialsGrant(await configFor(t.A, app), {
      scope: 'platform',
    });
    const port = new URL(t.A.origin).port;
    const made = await call(t.A, access_token, 'POST', '/platform/api/carshares', {
      BaseUrl: `https://third.localhost:${port}`,
      Name: 'Third',
      Operator: { Username: 'ops@third.example' },
    });
    expect(made.status).toBe(201);
    const id = made.json.CarShare.Id;
    const trail = await call(t.A, access_token, 'GET', `/platform/api/audit?carshareid=${id}`);
    expect(trail.json.AuditEntries[0]).toMatchObject({ ActorType: 'ClientApplication', ActorId: app.id });
    // At B's host there is no platform API, whatever the token.
    expect((await call(t.B, access_token, 'GET', '/platform/api/carshares')).status).toBe(404);
    expect((await call(t.B, await t.opsToken('B'), 'GET', `/platform/api/carshares/${id}`)).status).toBe(404);
  });

  it('serves a person with role platform signed in with scope platform; refuses an operator', async () => {
    const ops = await t.opsToken('A');
    const person = {
      username: `platform.${Date.now().toString(36)}@example.com`,
      password: 'a long and unusual passphrase',
    };
    const made = await gql(
      t.A,
      ops,
      'mutation($input: CreateUserAccountInput!) { createUserAccount(input: $input) { id } }',
      { input: { ...person, firstName: 'Pat', lastName: 'Form', roles: ['platform'] } },
    );
    expect(made.errors).toBeUndefined();
    const app = await t.clientIn(t.aId, {
      grants: ['authorization_code'],
      scopes: ['openid', 'platform'],
      redirectUris: [REDIRECT],
    });
    const tokens = await userTokens(t.A, app, REDIRECT, person, 'openid platform');
    const list = await call(t.A, tokens.access_token, 'GET', '/platform/api/carshares?sort=name');
    expect(list.status).toBe(200);
    expect(list.json.CarShares.map((c: { Id: string }) => c.Id)).toEqual(
      expect.arrayContaining([t.aId, t.bId]),
    );
    const refused = await call(t.A, ops, 'GET', '/platform/api/carshares');
    expect(refused.status).toBe(403);
    expect(refused.json.ResponseStatus.Meta.RequiredScopes).toEqual(['platform']);
  });
});
