// One authorization server per car share (CONTRACT §21): a second car share on the same service has its own issuer,
// keys, first-party dashboard client, accounts and rows, and nothing one car share issued works at the other (every
// row of §21's table). The service keeps the authorization server of one car share at a time here
// (CAR_SHARE_CACHE_SIZE=1), so every switch between the two rebuilds one from the database.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { dirname } from 'node:path';
import * as oc from 'openid-client';
import { Agent, fetch, type RequestInit } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { apiScopes } from '../../src/access/actor.js';
import { createUserAccount } from '../../src/accounts/account.commands.js';
import { CAR_SHARE_CHANNEL } from '../../src/carshares/registry.js';
import { createClientFromCli } from '../../src/clientapps/client-application.cli.js';
import { carShareEm, deploymentSql } from '../../src/db/scope.js';
import { localCaCertPath } from '../../src/local-ca.js';
import { DASHBOARD_CLIENT_ID } from '../../src/oauth/first-party.js';
import { systemClock } from '../../src/shared/clock.js';
import { useHarness } from '../support/harness.js';
import { defaultCarShareId } from '../support/scope.js';
import { waitFor } from '../support/wait.js';
import {
  authCodeRequest,
  authorize,
  Browser,
  configFor,
  gql,
  type OAuthService,
  OPS,
  signUp,
  startOAuthService,
  type TestClient,
  userTokens,
} from './support.js';

const REDIRECT = 'https://app.example/callback';
const SCOPE = 'account:read cars:read';

/** Every name resolves to the service's loopback address (no resolver knows `second.localhost`). */
const loopback = ((_host: string, opts: { all?: boolean }, cb: (...a: unknown[]) => void) =>
  opts?.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)) as LookupFunction;

let s: OAuthService;
/** The default car share (A) and a second one (B), each reached at its own BaseUrl. */
let A: OAuthService;
let B: OAuthService;
let bId: string;
/** Every Set-Cookie either car share sent. */
const setCookies: string[] = [];

/** The service as seen at one car share's address; cookies it sets are collected. */
function site(baseUrl: string, agent: Agent): OAuthService {
  const doFetch = async (pathOrUrl: string, init: RequestInit = {}) => {
    const r = await fetch(pathOrUrl.startsWith('https://') ? pathOrUrl : `${baseUrl}${pathOrUrl}`, {
      ...init,
      dispatcher: agent,
    });
    setCookies.push(...r.headers.getSetCookie());
    return r;
  };
  return {
    ...s,
    origin: baseUrl,
    issuer: `${baseUrl}/api/oauth`,
    agent,
    fetch: doFetch,
    customFetch: ((url: string, options: RequestInit) =>
      doFetch(String(url), options)) as unknown as OAuthService['customFetch'],
  };
}

/** Across car shares, as the DATABASE_URL user (the service's own connections start as the app role). */
const sql = <T>(query: string, params: unknown[] = []) => deploymentSql<T>(s.service.db.orm, query, params);

/** A client application made as `create-client` makes one, in the car share's scope. */
async function clientIn(
  carShareId: string,
  opts: { grants: string[]; scopes: string[]; redirectUris?: string[]; refresh?: boolean },
): Promise<TestClient> {
  const args = ['--name', `App ${randomUUID().slice(0, 8)}`, '--scopes', opts.scopes.join(' ')];
  for (const g of opts.grants) args.push('--grant', g);
  for (const u of opts.redirectUris ?? []) args.push('--redirect-uri', u);
  if (opts.refresh) args.push('--refresh');
  const r = await createClientFromCli(s.service.db, args, carShareId);
  return { id: r.Id, clientId: r.ClientId, clientSecret: r.ClientSecret };
}

const webApp = (carShareId: string) =>
  clientIn(carShareId, {
    grants: ['authorization_code'],
    scopes: ['openid', 'account:read', 'cars:read'],
    redirectUris: [REDIRECT],
    refresh: true,
  });

const basic = (c: Pick<TestClient, 'clientId' | 'clientSecret'>) =>
  `Basic ${Buffer.from(`${encodeURIComponent(c.clientId)}:${encodeURIComponent(c.clientSecret)}`).toString('base64')}`;

/** A form POST to an endpoint of a car share's authorization server, authenticated as `client`. */
async function post(
  at: OAuthService,
  path: string,
  client: Pick<TestClient, 'clientId' | 'clientSecret'>,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await at.fetch(`/api/oauth${path}`, {
    method: 'POST',
    headers: { authorization: basic(client), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const discovery = async (at: OAuthService) =>
  (await (await at.fetch('/api/oauth/.well-known/openid-configuration')).json()) as Record<string, unknown>;

const cars = (at: OAuthService, token: string) =>
  at.fetch('/api/cars', { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });

/** A user's tokens at one car share: its own account and app. */
async function tokensAt(at: OAuthService, carShareId: string) {
  const user = await signUp(at);
  const app = await webApp(carShareId);
  const t = await userTokens(at, app, REDIRECT, user, `openid ${SCOPE}`);
  return { user, app, t };
}

/** Adds a car share as the platform would (a row, then the NOTIFY every instance hears), and waits for it. */
async function addCarShare(host: string, baseUrl: string): Promise<string> {
  const id = randomUUID();
  await sql(`insert into car_share (id, base_url, host, name) values (?, ?, ?, ?)`, [
    id,
    baseUrl,
    host,
    'Second car share',
  ]);
  await sql('select pg_notify(?, ?)', [CAR_SHARE_CHANNEL, id]);
  return id;
}

async function servedAt(at: OAuthService, carShareId: string): Promise<void> {
  await waitFor(
    async () => {
      // Until the instance has heard of the host, its certificate is the default one: not verified for it.
      const r = await at.fetch('/', { headers: { accept: 'application/json' } }).catch(() => undefined);
      return ((await r?.json()) as { CarShareId?: string } | undefined)?.CarShareId === carShareId;
    },
    { timeoutMs: 5000, what: `the car share ${carShareId} to be served` },
  );
}

/** The service's `localhost` certificate and its local CA, which issues the other car shares' (§19). */
let trustedCerts: string[];
let caFile: string;
let trusted: Agent;

// The database emptied first (test files share it): another file may have left an account named like this one's
// bootstrap operator with a password of its own, which the service's start keeps.
useHarness({ resetEach: false });

beforeAll(async () => {
  s = await startOAuthService({ env: { CAR_SHARE_CACHE_SIZE: '1' } });
  const port = new URL(s.origin).port;
  A = site(s.origin, new Agent({ connect: { ca: s.service.cert, lookup: loopback } }));
  // A host of this file's own: test files share one database, and another may have left `second.localhost`.
  const host = `second-${randomUUID().slice(0, 8)}.localhost`;
  const second = `https://${host}:${port}`;
  bId = await addCarShare(host, second);
  caFile = localCaCertPath(dirname(dirname(s.service.certPath)));
  await waitFor(() => existsSync(caFile), { what: 'the local CA' });
  trustedCerts = [s.service.cert, readFileSync(caFile, 'utf8')];
  trusted = new Agent({ connect: { ca: trustedCerts, lookup: loopback } });
  B = site(second, trusted);
  await servedAt(B, bId);
  // B's first operator, made as the platform would make it.
  await carShareEm(s.service.db.orm, bId).transactional((em) =>
    createUserAccount(
      {
        em: em as never,
        actor: { kind: 'clientapplication', id: null, roles: [], scopes: apiScopes },
        clock: systemClock,
      },
      {
        username: OPS_B.username,
        password: OPS_B.password,
        firstName: 'Second',
        lastName: 'Operator',
        roles: ['ops'],
      },
    ),
  );
});
afterAll(async () => {
  await A?.agent.close();
  await trusted?.close();
  await s?.close();
});

const OPS_B = { username: 'ops@second.example', password: 'the second car share’s operator passphrase' };

describe('each car share’s authorization server', () => {
  it('names its own issuer, with every endpoint under its BaseUrl', async () => {
    for (const at of [A, B]) {
      const d = await discovery(at);
      expect(d.issuer).toBe(at.issuer);
      const endpoints = Object.entries(d).filter(([k]) => k.endsWith('_endpoint') || k === 'jwks_uri');
      expect(endpoints.length).toBeGreaterThanOrEqual(5);
      for (const [, url] of endpoints) expect(String(url)).toMatch(new RegExp(`^${at.issuer}/`));
    }
    // A host naming no car share reads the default one's, never the host as sent (UNKNOWN_HOST=default). (Its
    // certificate is the default one, which does not name it: not checked.)
    const evil = site(
      `https://evil.example:${new URL(s.origin).port}`,
      new Agent({ connect: { rejectUnauthorized: false, lookup: loopback } }),
    );
    const d = await discovery(evil);
    expect(d.issuer).toBe(A.issuer);
    expect(JSON.stringify(d)).not.toContain('evil.example');
    await evil.agent.close();
  });

  it('signs with its own keys: no kid or key in common', async () => {
    const jwks = async (at: OAuthService) =>
      ((await (await at.fetch('/api/oauth/jwks')).json()) as { keys: { kid: string; n: string }[] }).keys;
    const [a, b] = [await jwks(A), await jwks(B)];
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    expect(b.filter((k) => a.some((x) => x.kid === k.kid || x.n === k.n))).toEqual([]);
    const rows = await sql<{ car_share_id: string; kind: string; id: string; material: unknown }>(
      'select car_share_id, kind, id, material from oauth_key',
    );
    const of = (id: string) => rows.filter((r) => r.car_share_id === id);
    for (const kind of ['signing', 'cookie', 'derivation']) {
      const ka = of(defaultCarShareId()).filter((k) => k.kind === kind);
      const kb = of(bId).filter((k) => k.kind === kind);
      expect(ka).toHaveLength(1);
      expect(kb).toHaveLength(1);
      expect(JSON.stringify(kb[0]!.material)).not.toBe(JSON.stringify(ka[0]!.material));
    }
  });

  it('has its own first-party dashboard client, redirecting under its BaseUrl', async () => {
    const rows = await sql<{ car_share_id: string; client_id: string; redirect_uris: string[] }>(
      'select car_share_id, client_id, redirect_uris from client_application where is_first_party',
    );
    const a = rows.find((r) => r.car_share_id === defaultCarShareId());
    const b = rows.find((r) => r.car_share_id === bId);
    expect(a).toMatchObject({
      client_id: DASHBOARD_CLIENT_ID,
      // The default car share's also signs people in to the platform console (CONTRACT §22).
      redirect_uris: [`${A.origin}/dashboard/oauth/callback`, `${A.origin}/platform/oauth/callback`],
    });
    expect(b?.redirect_uris).toEqual([`${B.origin}/dashboard/oauth/callback`]);
    expect(b?.client_id).not.toBe(a?.client_id);
    const r = await B.fetch('/dashboard/signin', { redirect: 'manual' });
    const to = new URL(r.headers.get('location')!);
    expect(to.origin + to.pathname).toBe(`${B.issuer}/auth`);
    expect(to.searchParams.get('client_id')).toBe(b?.client_id);
    expect(to.searchParams.get('redirect_uri')).toBe(`${B.origin}/dashboard/oauth/callback`);
  });

  it('issues its tokens, whose authorization response names its issuer', async () => {
    const user = await signUp(B);
    const app = await webApp(bId);
    const config = await configFor(B, app);
    const { url, verifier, state } = await authCodeRequest(config, REDIRECT, `openid ${SCOPE}`);
    const r = await authorize(new Browser(B), url, user);
    expect(r.pages).toEqual(['login', 'consent']);
    expect(r.callback?.searchParams.get('iss')).toBe(B.issuer);
    const t = await oc.authorizationCodeGrant(config, r.callback!, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect((await gql(B, t.access_token, '{ me { id } }')).data?.me).toEqual({ id: user.id });
    expect((await cars(B, t.access_token)).status).toBe(200);
  });
});

describe('credentials of car share A presented at car share B', () => {
  it('an access token: 401 invalid_token at the REST API and /graphql, even once checked and cached at A', async () => {
    const { t } = await tokensAt(A, defaultCarShareId());
    expect((await cars(A, t.access_token)).status).toBe(200);
    const rest = await cars(B, t.access_token);
    expect(rest.status).toBe(401);
    expect(rest.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
    const graphql = await gql(B, t.access_token, '{ me { id } }');
    expect(graphql.status).toBe(401);
    expect(graphql.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect((await cars(A, t.access_token)).status).toBe(200);
  });

  it('an access token in graphql-ws connection_init: the connection closes with 4401', async () => {
    const { t } = await tokensAt(A, defaultCarShareId());
    const closeCode = (at: OAuthService, token: string) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(`${at.origin.replace('https', 'wss')}/graphql`, 'graphql-transport-ws', {
          lookup: loopback,
          ca: trustedCerts,
        });
        ws.on('open', () =>
          ws.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${token}` } })),
        );
        ws.on('message', (m) => {
          if (JSON.parse(String(m)).type === 'connection_ack') {
            ws.close(1000);
            resolve(1000);
          }
        });
        ws.on('close', (code) => resolve(code));
        ws.on('error', reject);
      });
    expect(await closeCode(A, t.access_token)).toBe(1000);
    expect(await closeCode(B, t.access_token)).toBe(4401);
  });

  it('introspection and revocation at B (with B’s client): inactive, 200, and the token keeps working at A', async () => {
    const { t } = await tokensAt(A, defaultCarShareId());
    const bApp = await clientIn(bId, { grants: ['client_credentials'], scopes: ['cars:read'] });
    const seen = await post(B, '/token/introspection', bApp, { token: t.access_token });
    expect(seen).toEqual({ status: 200, body: { active: false } });
    const revoked = await post(B, '/token/revocation', bApp, { token: t.access_token });
    expect(revoked.status).toBe(200);
    const refresh = await post(B, '/token/revocation', bApp, { token: t.refresh_token! });
    expect(refresh.status).toBe(200);
    expect((await cars(A, t.access_token)).status).toBe(200);
  });

  it('a client id and secret at B’s token endpoint: 401 invalid_client', async () => {
    const aApp = await clientIn(defaultCarShareId(), {
      grants: ['client_credentials'],
      scopes: ['cars:read'],
    });
    const form = { grant_type: 'client_credentials', scope: 'cars:read' };
    expect((await post(A, '/token', aApp, form)).status).toBe(200);
    const atB = await post(B, '/token', aApp, form);
    expect(atB.status).toBe(401);
    expect(atB.body.error).toBe('invalid_client');
  });

  it('an authorization code or refresh token: 400 invalid_grant, and A’s grant is not revoked', async () => {
    const user = await signUp(A);
    const aApp = await webApp(defaultCarShareId());
    const config = await configFor(A, aApp);
    const req = await authCodeRequest(config, REDIRECT, SCOPE);
    const r = await authorize(new Browser(A), req.url, user);
    const code = r.callback!.searchParams.get('code')!;
    const bApp = await webApp(bId);
    const exchange = {
      grant_type: 'authorization_code',
      code,
      code_verifier: req.verifier,
      redirect_uri: REDIRECT,
    };
    const atB = await post(B, '/token', bApp, exchange);
    expect(atB).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const atA = await post(A, '/token', aApp, exchange);
    expect(atA.status).toBe(200);
    const refreshToken = String(atA.body.refresh_token);
    const refreshAtB = await post(B, '/token', bApp, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
    expect(refreshAtB).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // No reuse detection across car shares: the refresh token and the access token still work at A.
    expect((await cars(A, String(atA.body.access_token))).status).toBe(200);
    const refreshAtA = await post(A, '/token', aApp, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
    expect(refreshAtA.status).toBe(200);
  });

  it('a sign-in session cookie at /api/oauth/auth: ignored, the sign-in page is shown', async () => {
    const user = await signUp(A);
    const aApp = await webApp(defaultCarShareId());
    const browser = new Browser(A);
    await userTokens(A, aApp, REDIRECT, user, SCOPE, browser);
    const session = browser.cookie('_session');
    expect(session).toBeTruthy();
    // At A, the session signs the user in again without the password (consent was given): a code at once.
    const again = await authCodeRequest(await configFor(A, aApp), REDIRECT, SCOPE);
    const atA = await new Browser(A).request(again.url.toString(), {
      headers: { cookie: `_session=${session}; _session.sig=${browser.cookie('_session.sig')}` },
    });
    expect(atA.headers.get('location')).toMatch(new RegExp(`^${REDIRECT}\\?code=`));
    const bApp = await webApp(bId);
    const req = await authCodeRequest(await configFor(B, bApp), REDIRECT, SCOPE);
    const bBrowser = new Browser(B);
    const first = await bBrowser.request(req.url.toString(), {
      headers: { cookie: `_session=${session}; _session.sig=${browser.cookie('_session.sig')}` },
    });
    expect(first.status).toBe(303);
    const page = await bBrowser.follow(new URL(first.headers.get('location')!, B.origin).toString());
    expect(page.url).toMatch(new RegExp(`^${B.issuer}/interaction/`));
    expect(page.html).toContain('name="password"');
  });

  it('a dashboard session cookie at /dashboard: ignored, a redirect to sign in', async () => {
    const browser = new Browser(A);
    const signedIn = await dashboardSignIn(A, browser, OPS);
    expect(signedIn.response.status).toBe(200);
    const cookie = browser.cookie('__Host-carshare-dashboard');
    // Where the sign-in ended, should it not have.
    expect(
      cookie,
      `${signedIn.url}: ${/role="alert"[^>]*>([^<]*)/.exec(signedIn.html)?.[1] ?? signedIn.html.slice(0, 300)}`,
    ).toBeTruthy();
    const r = await B.fetch('/dashboard', {
      headers: { cookie: `__Host-carshare-dashboard=${cookie}` },
      redirect: 'manual',
    });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toMatch(/^\/dashboard\/signin/);
  });

  it('the username and password of an account of A on B’s sign-in page: a wrong password, no lockout counted in A', async () => {
    const user = await signUp(A);
    const bApp = await webApp(bId);
    const req = await authCodeRequest(await configFor(B, bApp), REDIRECT, SCOPE);
    const browser = new Browser(B);
    const login = await browser.follow(req.url.toString());
    const answers: string[] = [];
    let page = login;
    for (let i = 0; i < 6; i++) {
      page = await browser.submit(page.url, page.html, { username: user.username, password: user.password });
      answers.push(/role="alert"[^>]*>([^<]*)/.exec(page.html)?.[1] ?? '');
    }
    expect(new Set(answers)).toEqual(new Set(['Wrong e-mail address or password.']));
    const [row] = await sql<{ failed_sign_ins: number; locked_until_utc: Date | null }>(
      'select failed_sign_ins, locked_until_utc from user_account where id = ?',
      [user.id],
    );
    expect(row).toEqual({ failed_sign_ins: 0, locked_until_utc: null });
    // And the account still signs in at A.
    await userTokens(A, await webApp(defaultCarShareId()), REDIRECT, user, SCOPE);
  });
});

/** Signs in to a car share's /dashboard as an operator, the way a browser does; ends on the dashboard's page. */
async function dashboardSignIn(
  at: OAuthService,
  browser: Browser,
  who: { username: string; password: string },
) {
  const login = await browser.follow(`${at.origin}/dashboard`);
  expect(login.url).toMatch(new RegExp(`^${at.issuer}/interaction/`));
  const done = await browser.submit(login.url, login.html, who);
  return done;
}

describe('each car share’s dashboard', () => {
  it('signs in only its own operators', async () => {
    const b = await dashboardSignIn(B, new Browser(B), OPS_B);
    expect(b.response.status).toBe(200);
    expect(b.url).toBe(`${B.origin}/dashboard`);
    expect(b.html).toContain(OPS_B.username);
    const a = await dashboardSignIn(A, new Browser(A), OPS);
    expect(a.html).toContain(OPS.username);
    // A's operator is no account at B.
    const browser = new Browser(B);
    const login = await browser.follow(`${B.origin}/dashboard`);
    const refused = await browser.submit(login.url, login.html, OPS);
    expect(refused.html).toContain('Wrong e-mail address or password.');
  });

  it('names its own issuer and certificate file on the integration page', async () => {
    const browser = new Browser(B);
    await dashboardSignIn(B, browser, OPS_B);
    const app = await clientIn(bId, { grants: ['client_credentials'], scopes: ['cars:read'] });
    const page = await (await browser.request(`${B.origin}/dashboard/clients/${app.id}`)).text();
    expect(page).toContain(`${B.issuer}/.well-known/openid-configuration`);
    expect(page).not.toContain(A.origin);
    // Its ready-made curl command trusts the file that verifies its host: the local CA's.
    expect(page).toContain(`curl --cacert ${caFile}`);
  });
});

describe('cookies', () => {
  it('are host-only: no Set-Cookie of either car share has a Domain attribute', () => {
    expect(setCookies.length).toBeGreaterThan(0);
    expect(setCookies.filter((c) => /;\s*domain=/i.test(c))).toEqual([]);
  });
});

describe('a change to a car share', () => {
  it('builds its authorization server again: a new address is its issuer, and its dashboard client follows', async () => {
    const port = new URL(s.origin).port;
    const moved = site(`https://third.localhost:${port}`, trusted);
    await sql('update car_share set base_url = ?, host = ? where id = ?', [
      moved.origin,
      'third.localhost',
      bId,
    ]);
    await sql('select pg_notify(?, ?)', [CAR_SHARE_CHANNEL, bId]);
    await servedAt(moved, bId);
    expect((await discovery(moved)).issuer).toBe(moved.issuer);
    const b = await dashboardSignIn(moved, new Browser(moved), OPS_B);
    expect(b.url).toBe(`${moved.origin}/dashboard`);
    const [client] = await sql<{ redirect_uris: string[] }>(
      'select redirect_uris from client_application where car_share_id = ? and is_first_party',
      [bId],
    );
    expect(client?.redirect_uris).toEqual([`${moved.origin}/dashboard/oauth/callback`]);
  });
});
