// A third-party app's sign-in and consent (authorization code + PKCE) end to end on two car shares of one service
// (CONTRACT §19, §21), in a real chromium: each host signs in its own users on its own pages, asks consent for its
// own client, redirects back with a code that only its own token endpoint exchanges, for a token only its own API
// accepts. Sessions, accounts and codes do not cross hosts, and the pages name no address but their own.
// (The second host is `second.localhost`: chromium resolves it to loopback, Node is told to; its certificate is
// the one the service's local CA issues it, which chromium trusts by key and Node through the CA.)
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { dirname } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAR_SHARE_CHANNEL } from '../../src/carshares/registry.js';
import { createClientFromCli } from '../../src/clientapps/client-application.cli.js';
import { deploymentSql } from '../../src/db/scope.js';
import { localCaCertPath } from '../../src/local-ca.js';
import { type OAuthService, signUp } from '../oauth/support.js';
import { defaultCarShareId } from '../support/scope.js';
import { waitFor } from '../support/wait.js';
import { type E2E, launchChromium, servedTo, startE2E } from './dashboard.support.js';

/** The app's redirect URI: a loopback page the test serves (http on loopback is allowed for local apps, §5). */
let REDIRECT: string;
let appServer: Server;
const SCOPE = 'account:read cars:read';

/** Every name resolves to the service's loopback address (Node's resolver need not know `second.localhost`). */
const loopback = ((_host: string, opts: { all?: boolean }, cb: (...a: unknown[]) => void) =>
  opts?.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)) as LookupFunction;

interface Host {
  origin: string;
  carShareId: string;
  /** The service as the OAuth support's helpers (sign-up) see it at this host. */
  s: OAuthService;
}
interface App {
  name: string;
  clientId: string;
  clientSecret: string;
}

let e: E2E;
let browser: Browser;
let agent: Agent;
let A: Host;
let B: Host;

function hostAt(origin: string, carShareId: string): Host {
  const doFetch: OAuthService['fetch'] = (pathOrUrl, init = {}) =>
    fetch(pathOrUrl.startsWith('https://') ? pathOrUrl : `${origin}${pathOrUrl}`, {
      ...init,
      dispatcher: agent,
    });
  return { origin, carShareId, s: { ...e.s, origin, issuer: `${origin}/api/oauth`, agent, fetch: doFetch } };
}

/** A third-party web app in the car share's scope, made as `create-client` makes one. */
async function appIn(h: Host): Promise<App> {
  const name = `Planner ${randomUUID().slice(0, 8)}`;
  const r = await createClientFromCli(
    e.service.db,
    ['--name', name, '--scopes', SCOPE, '--grant', 'authorization_code', '--redirect-uri', REDIRECT],
    h.carShareId,
  );
  return { name, clientId: r.ClientId, clientSecret: r.ClientSecret };
}

/** An authorization request with PKCE (S256) and state, at the endpoint the host's discovery document names. */
async function authorizeUrl(h: Host, app: App) {
  const d = (await (await h.s.fetch('/api/oauth/.well-known/openid-configuration')).json()) as Record<
    string,
    string
  >;
  expect(d.authorization_endpoint).toBe(`${h.origin}/api/oauth/auth`);
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const url = new URL(d.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: app.clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: SCOPE,
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  return { url: url.toString(), verifier, state };
}

/** An authorization code exchanged at a host's token endpoint by `app`. */
async function exchange(h: Host, app: App, code: string, verifier: string) {
  const r = await h.s.fetch('/api/oauth/token', {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
    }).toString(),
  });
  return { status: r.status, body: (await r.json()) as Record<string, string> };
}

const me = async (h: Host, token: string) => {
  const r = await h.s.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: '{ me { id username } }' }),
  });
  return { status: r.status, challenge: r.headers.get('www-authenticate'), body: await r.json() };
};

/** A fresh browser profile (no cookies), every request it makes recorded. */
async function newContext(): Promise<{ context: BrowserContext; page: Page; requests: string[] }> {
  const context = await browser.newContext();
  const requests: string[] = [];
  context.on('request', (r) => requests.push(r.url()));
  return { context, page: await context.newPage(), requests };
}

/** What a flow at `h` requested elsewhere than `h` and the app (its redirect URI): nothing, is the expectation. */
function strays(requests: string[], h: Host): string[] {
  const appOrigin = `${new URL(REDIRECT).origin}/`;
  expect(requests.filter((u) => u.startsWith(appOrigin)).length, 'requests to the app').toBeGreaterThan(0);
  const rest = requests.filter((u) => !u.startsWith(`${h.origin}/`) && !u.startsWith(appOrigin));
  requests.length = 0;
  return rest;
}

/** The page names only `h`'s own addresses: every link, source and form action, and no other host in its text. */
async function ownAddressesOnly(page: Page, h: Host, other: Host) {
  const urls = await page.evaluate<string[]>(
    `[...document.querySelectorAll('[href], [src], [action]')].map((el) => el.href || el.src || el.action)`,
  );
  for (const u of urls) expect(new URL(u).origin, u).toBe(h.origin);
  // (Its form posts to this host's interaction: the list above is not empty.)
  expect(urls.filter((u) => u.startsWith(`${h.origin}/api/oauth/interaction/`))).toHaveLength(1);
  expect(await page.content()).not.toContain(`//${new URL(other.origin).host}`);
}

/** Where the page is, once it reaches the redirect URI (and the app's page loaded: not a failed navigation). */
async function callback(page: Page): Promise<URL> {
  await page.waitForURL((u) => u.toString().startsWith(`${REDIRECT}?`));
  await expect.poll(() => page.title()).toBe('callback');
  return new URL(page.url());
}

/**
 * Signs `user` in at `h` through the browser and consents for `app`: checks both pages, then returns the code the
 * redirect URI receives (with the request's state and `h`'s issuer).
 */
async function signInAndConsent(
  page: Page,
  h: Host,
  other: Host,
  app: App,
  user: { username: string; password: string },
  req: { url: string; state: string },
  opts: { before?: () => Promise<void> } = {},
): Promise<string> {
  await page.goto(req.url);
  await page.waitForURL((u) => u.toString().startsWith(`${h.origin}/api/oauth/interaction/`));
  await page.getByRole('heading', { level: 1, name: `Sign in to continue to ${app.name}` }).waitFor();
  await ownAddressesOnly(page, h, other);
  await opts.before?.();
  await page.getByLabel('E-mail address').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // The consent page names the app and each scope asked, and is served at this host.
  await page
    .getByRole('heading', { level: 1, name: `${app.name} wants to access your Carshare account` })
    .waitFor();
  expect(page.url()).toMatch(new RegExp(`^${h.origin}/api/oauth/interaction/`));
  await expect(page.locator('main').textContent()).resolves.toContain(`Signed in as ${user.username}`);
  const scopes = await page.locator('li .muted').allTextContents();
  expect(scopes.sort()).toEqual(['(account:read)', '(cars:read)']);
  await ownAddressesOnly(page, h, other);
  await page.getByRole('button', { name: 'Allow' }).click();
  const back = await callback(page);
  expect(back.searchParams.get('state')).toBe(req.state);
  expect(back.searchParams.get('iss')).toBe(`${h.origin}/api/oauth`);
  expect(back.searchParams.get('error')).toBeNull();
  const code = back.searchParams.get('code');
  expect(code).toBeTruthy();
  return code!;
}

beforeAll(async () => {
  appServer = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>callback</title>'),
  );
  await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
  REDIRECT = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}/callback`;
  e = await startE2E();
  const port = Number(new URL(e.origin).port);
  const second = `https://second.localhost:${port}`;
  const bId = randomUUID();
  // As the platform adds a car share: a row, then the NOTIFY every instance hears (as the DATABASE_URL user).
  const orm = e.service.db.orm;
  await deploymentSql(orm, 'insert into car_share (id, base_url, host, name) values (?, ?, ?, ?)', [
    bId,
    second,
    'second.localhost',
    'Second car share',
  ]);
  await deploymentSql(orm, 'select pg_notify(?, ?)', [CAR_SHARE_CHANNEL, bId]);
  // Once the instance has heard of it, its host gets a certificate from the local CA (no longer the default one).
  const leaf = await waitFor(
    async () => {
      const pem = await servedTo('second.localhost', port);
      return pem.replace(/\s/g, '') === e.service.cert.replace(/\s/g, '') ? undefined : pem;
    },
    { timeoutMs: 10_000, what: 'the second car share’s certificate' },
  );
  const caFile = localCaCertPath(dirname(dirname(e.service.certPath)));
  await waitFor(() => existsSync(caFile), { what: 'the local CA' });
  agent = new Agent({ connect: { ca: [e.service.cert, readFileSync(caFile, 'utf8')], lookup: loopback } });
  A = hostAt(e.origin, defaultCarShareId());
  B = hostAt(second, bId);
  browser = await launchChromium([e.service.cert, leaf]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await agent?.close();
  await e?.close();
  await new Promise((resolve) => (appServer ? appServer.close(resolve) : resolve(undefined)));
});

describe('a third-party app’s sign-in and consent on two car shares in one browser', {
  timeout: 120_000,
}, () => {
  it('each host signs in its own user, asks consent, and issues a code only it exchanges, for a token only it accepts', async () => {
    const [userA, userB] = [await signUp(A.s), await signUp(B.s)];
    const [appA, appB] = [await appIn(A), await appIn(B)];
    const { context, page, requests } = await newContext();

    // At A: sign in, consent, code; the code is a token at A's own token endpoint, good at A's API only.
    const reqA = await authorizeUrl(A, appA);
    const codeA = await signInAndConsent(page, A, B, appA, userA, reqA);
    const tokenA = await exchange(A, appA, codeA, reqA.verifier);
    expect(tokenA.status).toBe(200);
    expect((await me(A, tokenA.body.access_token!)).body).toEqual({
      data: { me: { id: userA.id, username: userA.username } },
    });
    const aAtB = await me(B, tokenA.body.access_token!);
    expect(aAtB.status).toBe(401);
    expect(aAtB.challenge).toMatch(/^Bearer .*error="invalid_token"/);
    // Every request of A's flow went to A, and then to the redirect URI: no redirect through the other host.
    expect(strays(requests, A)).toEqual([]);

    // At B, in the same browser: A's session counts for nothing (B's sign-in page), A's user is a wrong password
    // there; B's own user signs in and consents, and B's code is a token at B only.
    const reqB = await authorizeUrl(B, appB);
    const codeB = await signInAndConsent(page, B, A, appB, userB, reqB, {
      before: async () => {
        await page.getByLabel('E-mail address').fill(userA.username);
        await page.getByLabel('Password').fill(userA.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByText('Wrong e-mail address or password.').waitFor();
        expect(page.url()).toMatch(new RegExp(`^${B.origin}/api/oauth/interaction/`));
        await ownAddressesOnly(page, B, A);
      },
    });
    const tokenB = await exchange(B, appB, codeB, reqB.verifier);
    expect(tokenB.status).toBe(200);
    expect((await me(B, tokenB.body.access_token!)).body).toEqual({
      data: { me: { id: userB.id, username: userB.username } },
    });
    const bAtA = await me(A, tokenB.body.access_token!);
    expect(bAtA.status).toBe(401);
    expect(bAtA.challenge).toMatch(/^Bearer .*error="invalid_token"/);
    expect(strays(requests, B)).toEqual([]);

    // A's session and consent were there all along (so B's sign-in page above was not for want of one): a new
    // authorization at A goes straight back to the app with a code. Cookies are host-only.
    const again = await authorizeUrl(A, appA);
    await page.goto(again.url);
    const back = await callback(page);
    expect(back.searchParams.get('state')).toBe(again.state);
    expect(back.searchParams.get('code')).toBeTruthy();
    expect(requests.filter((u) => u.includes('/api/oauth/interaction/'))).toEqual([]);
    expect(strays(requests, A)).toEqual([]);
    expect((await context.cookies()).filter((c) => c.domain.startsWith('.'))).toEqual([]);
    await context.close();
  });

  it('A’s code at B’s token endpoint: invalid_grant with B’s client, invalid_client with A’s; it still works at A', async () => {
    const user = await signUp(A.s);
    const [appA, appB] = [await appIn(A), await appIn(B)];
    const { context, page } = await newContext();
    const req = await authorizeUrl(A, appA);
    const code = await signInAndConsent(page, A, B, appA, user, req);
    await context.close();

    const withB = await exchange(B, appB, code, req.verifier);
    expect(withB.status).toBe(400);
    expect(withB.body.error).toBe('invalid_grant');
    const withA = await exchange(B, appA, code, req.verifier);
    expect(withA.status).toBe(401);
    expect(withA.body.error).toBe('invalid_client');
    // No reuse detection across car shares: the code was not spent, and A exchanges it.
    const atA = await exchange(A, appA, code, req.verifier);
    expect(atA.status).toBe(200);
    expect((await me(A, atA.body.access_token!)).status).toBe(200);
  });
});
