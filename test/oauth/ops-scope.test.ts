// The `ops` scope and the dashboard's first-party app: only operators can grant `ops`, only apps allowed it can
// ask; the dashboard's own app signs operators in without a consent page.
import * as oc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_CLIENT_ID } from '../../src/oauth/first-party.js';
import {
  authCodeRequest,
  authorize,
  Browser,
  configFor,
  createClient,
  dashboardOf,
  gql,
  type OAuthService,
  OPS,
  signUp,
  startOAuthService,
  userTokens,
} from './support.js';

let s: OAuthService;
beforeAll(async () => {
  s = await startOAuthService();
});
afterAll(async () => s?.close());

const REDIRECT = 'https://ops-tool.example/callback';
const LIST = '{ clientApplications { total nodes { clientId isFirstParty } } }';

describe('the ops scope', () => {
  it('an operator grants it through an app allowed it, and may then manage client applications', async () => {
    const app = await createClient(s, {
      grants: ['authorization_code'],
      scopes: ['ops', 'account:read'],
      redirectUris: [REDIRECT],
    });
    const config = await configFor(s, app);
    const { url } = await authCodeRequest(config, REDIRECT, 'ops account:read');
    const browser = new Browser(s);
    const login = await browser.follow(url.toString());
    const consent = await browser.submit(login.url, login.html, OPS);
    expect(consent.html).toContain('Act with your operator privileges');
    const t = await userTokens(s, app, REDIRECT, OPS, 'ops account:read', browser);
    expect(t.scope?.split(' ').sort()).toEqual(['account:read', 'ops']);
    const r = await gql(s, t.access_token, LIST);
    expect(r.status).toBe(200);
    expect(r.data?.clientApplications.total).toBeGreaterThan(0);
  });

  it('a user without the ops role is never asked for it and never gets it', async () => {
    const user = await signUp(s);
    const app = await createClient(s, {
      grants: ['authorization_code'],
      scopes: ['ops', 'account:read'],
      redirectUris: [REDIRECT],
    });
    const config = await configFor(s, app);
    const { url } = await authCodeRequest(config, REDIRECT, 'ops account:read');
    const browser = new Browser(s);
    const login = await browser.follow(url.toString());
    const consent = await browser.submit(login.url, login.html, user);
    expect(consent.html).toContain('name="decision"');
    expect(consent.html).not.toContain('operator privileges');
    const t = await userTokens(s, app, REDIRECT, user, 'ops account:read', browser);
    expect(t.scope).toBe('account:read');
    const r = await gql(s, t.access_token, LIST);
    expect(r.errors?.[0].extensions.code).toBe('Forbidden');
  });

  it('an app not allowed ops cannot ask for it', async () => {
    const app = await createClient(s, {
      grants: ['authorization_code'],
      scopes: ['account:read'],
      redirectUris: [REDIRECT],
    });
    const { url } = await authCodeRequest(await configFor(s, app), REDIRECT, 'ops account:read');
    const r = await new Browser(s).request(url.toString());
    expect(new URL(r.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
  });

  it('an operator signed in through an app without ops acts as a plain user', async () => {
    const app = await createClient(s, {
      grants: ['authorization_code'],
      scopes: ['account:read', 'users:read'],
      redirectUris: [REDIRECT],
    });
    const t = await userTokens(s, app, REDIRECT, OPS, 'account:read users:read');
    expect((await gql(s, t.access_token, LIST)).errors?.[0].extensions.code).toBe('Forbidden');
    const me = await gql(s, t.access_token, '{ userAccounts { total } }');
    expect(me.data?.userAccounts.total).toBe(1);
  });
});

describe('the dashboard’s first-party app', () => {
  it('exists after start, and signs an operator in with the ops scope and no consent page', async () => {
    const dash = await dashboardOf(s);
    expect(dash.clientId).toBe(DASHBOARD_CLIENT_ID);
    const config = await configFor(s, dash);
    const { url, verifier, state } = await authCodeRequest(
      config,
      dash.redirectUri,
      'openid ops account:read',
    );
    const r = await authorize(new Browser(s), url, OPS, 'allow', dash.redirectUri);
    expect(r.pages).toEqual(['login']);
    const t = await oc.authorizationCodeGrant(config, r.callback!, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(t.refresh_token).toBeTruthy();
    const list = await gql(s, t.access_token, LIST);
    expect(list.data?.clientApplications.nodes).toContainEqual({
      clientId: DASHBOARD_CLIENT_ID,
      isFirstParty: true,
    });
  });

  it('cannot be deleted', async () => {
    const dash = await dashboardOf(s);
    const t = await userTokens(s, dash, dash.redirectUri, OPS, 'ops');
    const [row] = await s.sql<{ id: string }>('select id from client_application where client_id = ?', [
      DASHBOARD_CLIENT_ID,
    ]);
    const r = await gql(
      s,
      t.access_token,
      'mutation($id: UUID!) { deleteClientApplication(id: $id) { id } }',
      {
        id: row!.id,
      },
    );
    expect(r.errors?.[0].extensions.code).toBe('Forbidden');
  });
});
