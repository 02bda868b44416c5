// A suspended car share is refused everywhere (CONTRACT §23), from the moment suspendCarShare returns: REST in the
// negotiated format (the 304 shortcut included), /graphql, pages, every OAuth endpoint, WebSocket upgrades, and
// its open graphql-ws connections (4403); the probes still answer, and the other car share is untouched. What it
// issued is kept: after reactivation its tokens, refresh tokens and client secrets work again.
import { type Client, createClient } from 'graphql-ws';
import * as oc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { reactivateCarShare, suspendCarShare } from '../../src/carshares/car-share.lifecycle.js';
import {
  authCodeRequest,
  authorize,
  Browser,
  configFor,
  gql,
  type OAuthService,
  signUp,
  startOAuthService,
  type TestClient,
  userTokens,
} from '../oauth/support.js';
import { startTwoCarShares, type TwoCarShares } from '../oauth/two-car-shares.js';
import { atHost } from '../support/car-shares.js';
import { waitFor } from '../support/wait.js';

const REDIRECT = 'https://app.example/callback';
const PLATFORM = { actorType: 'Platform' } as const;

let t: TwoCarShares;
/** Issued by B before it is suspended. */
let user: { access_token: string; refresh_token?: string | undefined };
let webApp: TestClient;
/** A person of B, and the browser that holds their sign-in session (and, at B, their consent to webApp). */
let person: { username: string; password: string };
let browser: Browser;
let machine: TestClient;
let machineToken: string;
let etag: string;

beforeAll(async () => {
  t = await startTwoCarShares();
  webApp = await t.clientIn(t.bId, {
    grants: ['authorization_code'],
    scopes: ['openid', 'account:read', 'cars:read'],
    redirectUris: [REDIRECT],
    refresh: true,
  });
  person = await signUp(t.B);
  browser = new Browser(t.B);
  user = await userTokens(t.B, webApp, REDIRECT, person, 'openid account:read cars:read', browser);
  machine = await t.clientIn(t.bId, {
    grants: ['client_credentials'],
    scopes: ['cars:read', 'webhooks:read'],
  });
  machineToken = (await oc.clientCredentialsGrant(await configFor(t.B, machine), { scope: 'cars:read' }))
    .access_token;
  const cars = await t.B.fetch('/api/cars', { headers: bearer(machineToken) });
  expect(cars.status).toBe(200);
  etag = cars.headers.get('etag')!;
  expect(etag).toBeTruthy();
});
afterAll(async () => t?.close());

const bearer = (token: string, accept = 'application/json') => ({ authorization: `Bearer ${token}`, accept });

/** A graphql-ws connection to a car share's own address, acknowledged; `closed` resolves with its close code. */
function connect(at: OAuthService, token: string): Promise<{ client: Client; closed: Promise<number> }> {
  return connectTo(`${at.origin.replace('https', 'wss')}/graphql`, token, { ca: t.ca, lookup: t.lookup });
}

async function connectTo(
  url: string,
  token: string,
  options: ConstructorParameters<typeof WebSocket>[2],
): Promise<{ client: Client; closed: Promise<number> }> {
  let closedWith: (code: number) => void = () => undefined;
  const closed = new Promise<number>((ok) => {
    closedWith = ok;
  });
  const client = createClient({
    url,
    webSocketImpl: class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, options);
      }
    },
    connectionParams: { Authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => undefined,
    on: { closed: (e) => closedWith((e as { code: number }).code) },
  });
  await new Promise<void>((ok, fail) => {
    client.on('connected', () => ok());
    client.on('error', fail);
  });
  return { client, closed };
}

/** The status of a WebSocket upgrade to `/graphql` at a car share's address. */
function upgradeStatus(at: OAuthService): Promise<number> {
  return new Promise((done) => {
    const ws = new WebSocket(`${at.origin.replace('https', 'wss')}/graphql`, 'graphql-transport-ws', {
      ca: t.ca,
      lookup: t.lookup,
    });
    ws.on('open', () => {
      ws.close();
      done(101);
    });
    ws.on('unexpected-response', (_req, res) => done(res.statusCode ?? 0));
    ws.on('error', () => undefined);
  });
}

const form = (c: TestClient, body: Record<string, string>) => ({
  method: 'POST',
  headers: {
    authorization: `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64')}`,
    'content-type': 'application/x-www-form-urlencoded',
  },
  body: new URLSearchParams(body).toString(),
});

describe('a suspended car share', () => {
  it('is refused on every path but the probes, in each surface’s terms, as soon as the suspension returns', async () => {
    const inB = await connect(t.B, machineToken);
    const inA = await connect(t.A, await t.opsToken('A', 'ops'));
    await suspendCarShare(t.s.service.db.orm, t.bId, 'Unpaid invoice', PLATFORM, new Date());

    // REST, in the negotiated format; a revalidation with the ETag served before is no 304.
    const json = await t.B.fetch('/api/cars', { headers: bearer(machineToken) });
    expect(json.status).toBe(403);
    expect(((await json.json()) as any).ResponseStatus).toMatchObject({
      ErrorCode: 'CarShareSuspended',
      Message: expect.stringContaining('suspended'),
    });
    const xml = await t.B.fetch('/api/cars?format=xml', { headers: bearer(machineToken) });
    expect(xml.status).toBe(403);
    expect(xml.headers.get('content-type')).toContain('xml');
    expect(await xml.text()).toContain('<ErrorCode>CarShareSuspended</ErrorCode>');
    const revalidated = await t.B.fetch('/api/cars', {
      headers: { ...bearer(machineToken), 'if-none-match': etag },
    });
    expect(revalidated.status).toBe(403);
    const anonymous = await t.B.fetch('/', { headers: { accept: 'application/json' } });
    expect(anonymous.status).toBe(403);
    expect(((await anonymous.json()) as any).ResponseStatus.ErrorCode).toBe('CarShareSuspended');

    // GraphQL.
    const g = await gql(t.B, machineToken, '{ cars { total } }');
    expect(g.status).toBe(403);
    expect(g.errors?.[0]).toMatchObject({ extensions: { code: 'CarShareSuspended' } });

    // Pages, the sign-in pages included: an HTML page saying so.
    for (const path of ['/', '/dashboard', '/docs', '/api/oauth/interaction/some-interaction']) {
      const page = await t.B.fetch(path, { headers: { accept: 'text/html' }, redirect: 'manual' });
      expect(page.status, path).toBe(403);
      expect(page.headers.get('content-type'), path).toContain('text/html');
      expect(await page.text(), path).toContain('suspended');
    }

    // Every OAuth endpoint: 403 access_denied.
    const oauth: [string, RequestInit?][] = [
      ['/api/oauth/.well-known/openid-configuration'],
      ['/api/oauth/jwks'],
      [`/api/oauth/auth?client_id=${webApp.clientId}&response_type=code&scope=openid`],
      ['/api/oauth/token', form(machine, { grant_type: 'client_credentials', scope: 'cars:read' })],
      ['/api/oauth/token/introspection', form(machine, { token: machineToken })],
      ['/api/oauth/token/revocation', form(machine, { token: machineToken })],
    ];
    for (const [path, init] of oauth) {
      const r = await t.B.fetch(path, { redirect: 'manual', ...(init as object) });
      expect(r.status, path).toBe(403);
      expect(await r.json(), path).toMatchObject({
        error: 'access_denied',
        error_description: expect.any(String),
      });
    }

    // WebSockets: the upgrade is refused, and the connection open before has been closed with 4403.
    expect(await upgradeStatus(t.B)).toBe(403);
    expect(await inB.closed).toBe(4403);

    // The probes answer on its host; the default car share is untouched, its connection open.
    expect((await t.B.fetch('/healthz')).status).toBe(200);
    expect((await t.A.fetch('/', { headers: { accept: 'application/json' } })).status).toBe(200);
    expect(await upgradeStatus(t.A)).toBe(101);
    expect(await Promise.race([inA.closed, new Promise((ok) => setTimeout(() => ok('open'), 200))])).toBe(
      'open',
    );
    await inA.client.dispose();
  });

  it('keeps what it issued: after reactivation tokens, refresh tokens and client secrets work again', async () => {
    // The revocation above was refused: the token is still good once the car share is back.
    await reactivateCarShare(t.s.service.db.orm, t.bId, PLATFORM, new Date());
    expect((await t.B.fetch('/api/cars', { headers: bearer(machineToken) })).status).toBe(200);
    expect((await gql(t.B, user.access_token, '{ me { id } }')).data?.me.id).toBeTruthy();
    const refreshed = await oc.refreshTokenGrant(await configFor(t.B, webApp), user.refresh_token!);
    expect((await gql(t.B, refreshed.access_token, '{ me { id } }')).data?.me.id).toBeTruthy();
    const again = await oc.clientCredentialsGrant(await configFor(t.B, machine), { scope: 'cars:read' });
    expect(again.access_token).toBeTruthy();
    expect(await upgradeStatus(t.B)).toBe(101);
    const ws = await connect(t.B, machineToken);
    await ws.client.dispose();
    // The sign-in session and the consent: a new authorization shows neither the sign-in nor the consent page.
    const { url } = await authCodeRequest(await configFor(t.B, webApp), REDIRECT, 'openid account:read');
    const resumed = await authorize(browser, url, person, 'allow', REDIRECT);
    expect(resumed.pages).toEqual([]);
    expect(resumed.callback?.searchParams.get('code')).toBeTruthy();
  });

  it('is refused by another instance on the same database as soon as the suspension returns', async () => {
    const other = await startTwoCarSharesInstance();
    try {
      // The other instance serves B (and has cached its token) before the suspension, and holds a connection of it.
      expect((await other.fetch('/api/cars', { headers: bearer(machineToken) })).status).toBe(200);
      const held = await connectTo(`wss://127.0.0.1:${other.port}/graphql`, machineToken, {
        rejectUnauthorized: false,
        headers: { host: t.bHost },
      });
      // Both ways, a few times: the other instance hears of each change by NOTIFY, and no request there is
      // answered before what was committed earlier is known.
      for (let round = 0; round < 5; round++) {
        await suspendCarShare(t.s.service.db.orm, t.bId, null, PLATFORM, new Date());
        const r = await other.fetch('/api/cars', { headers: bearer(machineToken) });
        expect(r.status, `round ${round}`).toBe(403);
        expect(((await r.json()) as any).ResponseStatus.ErrorCode).toBe('CarShareSuspended');
        if (round === 0) expect(await held.closed).toBe(4403);
        await reactivateCarShare(t.s.service.db.orm, t.bId, PLATFORM, new Date());
        expect(
          (await other.fetch('/api/cars', { headers: bearer(machineToken) })).status,
          `round ${round}`,
        ).toBe(200);
      }
    } finally {
      await other.close();
    }
  });
});

/**
 * A second instance of the service on the same database, reached as B's host (its own certificates, not verified
 * here: the point is which car share answers).
 */
async function startTwoCarSharesInstance() {
  const s2 = await startOAuthService();
  const port = Number(new URL(s2.origin).port);
  await waitFor(async () => (await atHost(port, t.bHost, '/api/cars')).status !== 404, {
    what: 'the second instance to serve B',
  });
  return {
    fetch: async (path: string, init: { headers?: Record<string, string> } = {}) => {
      const r = await atHost(port, t.bHost, path, { headers: init.headers ?? {} });
      return { status: r.status, json: async () => r.json };
    },
    port,
    close: () => s2.close(),
  };
}
