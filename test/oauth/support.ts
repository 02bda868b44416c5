// The real service over HTTPS for OAuth tests: its issuer on the real port, a log sink to inspect, an undici
// agent trusting its certificate, openid-client configured against it, and a tiny cookie-keeping "browser".

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as oc from 'openid-client';
import { pino } from 'pino';
import { Agent, fetch, Headers, type RequestInit, type Response } from 'undici';
import { inject } from 'vitest';
import { createClientFromCli } from '../../src/clientapps/client-application.cli.js';
import { loadConfig } from '../../src/config.js';
import { type DashboardClient, dashboardClient } from '../../src/oauth/first-party.js';
import { type Service, type ServiceOptions, startService } from '../../src/service.js';
import type { Clock } from '../../src/shared/clock.js';
import { freePort } from '../support/port.js';
import { defaultCarShareId, scoped } from '../support/scope.js';

export const OPS = { username: 'ops@example.com', password: 'operator passphrase for tests' };

export interface OAuthService {
  service: Service;
  origin: string;
  issuer: string;
  agent: Agent;
  logs: string[];
  fetch(pathOrUrl: string, init?: RequestInit): Promise<Response>;
  customFetch: oc.CustomFetch;
  sql<T = Record<string, unknown>>(query: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export async function startOAuthService(
  opts: { env?: Record<string, string>; clock?: Clock; webhooks?: ServiceOptions['webhooks'] } = {},
): Promise<OAuthService> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'carshare-oauth-'));
  const origin = `https://localhost:${port}`;
  const config = loadConfig({
    PORT: String(port),
    HTTP_PORT: '0',
    HOST: '127.0.0.1',
    PUBLIC_URL: origin,
    DATA_DIR: dataDir,
    DATABASE_URL: inject('databaseUrl'),
    OPS_EMAIL: OPS.username,
    OPS_PASSWORD: OPS.password,
    RATE_LIMIT_AUTH_PER_MINUTE: '100000',
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
    ...opts.env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const service = await startService({
    config,
    log: pino({ level: 'trace' }, sink),
    timers: false,
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.webhooks ? { webhooks: opts.webhooks } : {}),
  });
  const agent = new Agent({ connect: { ca: service.cert } });
  const doFetch = (pathOrUrl: string, init: RequestInit = {}) =>
    fetch(pathOrUrl.startsWith('https://') ? pathOrUrl : `${origin}${pathOrUrl}`, {
      ...init,
      dispatcher: agent,
    });
  const customFetch: oc.CustomFetch = (url, options) =>
    fetch(url, { ...(options as RequestInit), dispatcher: agent }) as unknown as ReturnType<oc.CustomFetch>;
  return {
    service,
    origin,
    issuer: `${origin}/api/oauth`,
    agent,
    logs,
    fetch: doFetch,
    customFetch,
    // In the default car share's scope, as the service's own statements run (src/db/scope.ts).
    sql: (query, params = []) =>
      scoped(service.db.orm).transactional((em) =>
        em.getConnection().execute(query, params, 'all', em.getTransactionContext()),
      ) as never,
    async close() {
      await service.stop();
      await agent.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The default car share's dashboard client (what its /dashboard signs operators in with). */
export const dashboardOf = (s: Pick<OAuthService, 'service' | 'origin'>): Promise<DashboardClient> =>
  dashboardClient(s.service.db.orm, { id: defaultCarShareId(), baseUrl: s.origin, isDefault: true });

export interface TestClient {
  id: string;
  clientId: string;
  clientSecret: string;
}

let n = 0;

/** A client application made the way an operator would at the command line. */
export async function createClient(
  s: OAuthService,
  opts: { grants: string[]; scopes: string[]; redirectUris?: string[]; refresh?: boolean; name?: string },
): Promise<TestClient> {
  n += 1;
  const args = ['--name', opts.name ?? `Test app ${n}`, '--scopes', opts.scopes.join(' ')];
  for (const g of opts.grants) args.push('--grant', g);
  for (const u of opts.redirectUris ?? []) args.push('--redirect-uri', u);
  if (opts.refresh) args.push('--refresh');
  const r = await createClientFromCli(s.service.db, args, inject('defaultCarShareId'));
  return { id: r.Id, clientId: r.ClientId, clientSecret: r.ClientSecret };
}

export async function configFor(s: OAuthService, c: Pick<TestClient, 'clientId' | 'clientSecret'>) {
  return oc.discovery(new URL(s.issuer), c.clientId, undefined, oc.ClientSecretBasic(c.clientSecret), {
    [oc.customFetch]: s.customFetch,
  });
}

/** The OAuth error of a failed openid-client call: `error` and HTTP status. */
export async function oauthError(
  p: Promise<unknown>,
): Promise<{ error: string | undefined; status: number | undefined }> {
  try {
    await p;
  } catch (e) {
    const err = e as {
      error?: string;
      status?: number;
      cause?: unknown;
      code?: string;
    };
    if (err.error) return { error: err.error, status: err.status };
    // A 401 with a WWW-Authenticate challenge surfaces as WWWAuthenticateChallengeError.
    const challenges = Array.isArray(err.cause) ? (err.cause as { parameters?: { error?: string } }[]) : [];
    const fromChallenge = challenges.find((c) => c.parameters?.error)?.parameters?.error;
    return { error: fromChallenge ?? err.code, status: err.status };
  }
  throw new Error('expected the call to fail');
}

export const gql = async (
  s: OAuthService,
  token: string | undefined,
  query: string,
  variables: Record<string, unknown> = {},
) => {
  const r = await s.fetch('/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await r.json()) as { data?: Record<string, any> | null; errors?: any[] };
  return { status: r.status, headers: r.headers, ...body };
};

/** A user made through the public sign-up mutation. */
export async function signUp(s: OAuthService, overrides: Record<string, unknown> = {}) {
  n += 1;
  const input = {
    username: `oauth${n}.${Date.now().toString(36)}@example.com`,
    password: 'a long and unusual passphrase',
    firstName: 'Test',
    lastName: `User${n}`,
    ...overrides,
  };
  const r = await gql(
    s,
    undefined,
    'mutation($input: CreateUserAccountInput!) { createUserAccount(input: $input) { id username } }',
    { input },
  );
  if (!r.data?.createUserAccount) throw new Error(`sign-up failed: ${JSON.stringify(r.errors)}`);
  return { id: r.data.createUserAccount.id as string, username: input.username, password: input.password };
}

/** A browser that keeps cookies (per path) and does not follow redirects on its own. */
export class Browser {
  readonly #cookies = new Map<string, { value: string; path: string }>();
  constructor(private readonly s: OAuthService) {}

  cookie(name: string): string | undefined {
    return this.#cookies.get(name)?.value;
  }

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const u = new URL(url, this.s.origin);
    const cookie = [...this.#cookies]
      .filter(([, c]) => u.pathname.startsWith(c.path))
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ');
    const headers = new Headers(init.headers as Record<string, string> | undefined);
    if (cookie) headers.set('cookie', cookie);
    const r = await this.s.fetch(u.toString(), { ...init, headers, redirect: 'manual' });
    for (const line of r.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';').map((p) => p.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      const path = attrs.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const expired = attrs.some(
        (a) =>
          (a.toLowerCase().startsWith('expires=') && new Date(a.slice(8)).getTime() < Date.now()) ||
          a.toLowerCase() === 'max-age=0',
      );
      if (expired || value === '') this.#cookies.delete(name);
      else this.#cookies.set(name, { value, path });
    }
    return r;
  }

  /** Follows same-origin redirects until a page (non-redirect), a redirect leaving the service, or `stopAt`. */
  async follow(
    url: string,
    init: RequestInit = {},
    stopAt?: string,
  ): Promise<{ response: Response; url: string; html: string }> {
    let r = await this.request(url, init);
    let current = new URL(url, this.s.origin).toString();
    for (let i = 0; i < 10 && r.status >= 300 && r.status < 400; i++) {
      const next = new URL(r.headers.get('location')!, current);
      if (next.origin !== this.s.origin || (stopAt && next.toString().startsWith(stopAt)))
        return { response: r, url: next.toString(), html: '' };
      await r.body?.cancel();
      current = next.toString();
      r = await this.request(current);
    }
    return { response: r, url: current, html: await r.text() };
  }

  async submit(pageUrl: string, html: string, fields: Record<string, string>, stopAt?: string) {
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    if (!action || !csrf) throw new Error(`no form on ${pageUrl}: ${html.slice(0, 300)}`);
    return this.follow(
      new URL(action.replace(/&#38;/g, '&'), pageUrl).toString(),
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, ...fields }).toString(),
      },
      stopAt,
    );
  }
}

export interface AuthorizeResult {
  /** Where the browser was finally sent (the redirect URI with code or error), if it left the service. */
  callback?: URL;
  /** The last page shown, when the flow stopped on one. */
  html: string;
  status: number;
  pages: string[];
}

/**
 * Drives an authorization request in a browser: signs in when asked, answers consent with `decision`.
 * Stops at the redirect back to the app, or at a page it cannot answer.
 */
export async function authorize(
  browser: Browser,
  url: URL,
  user: { username: string; password: string },
  decision: 'allow' | 'deny' = 'allow',
  stopAt?: string,
): Promise<AuthorizeResult> {
  const pages: string[] = [];
  let step = await browser.follow(url.toString(), {}, stopAt);
  for (let i = 0; i < 4; i++) {
    if (step.html === '' && step.url)
      return { callback: new URL(step.url), html: '', status: step.response.status, pages };
    const html = step.html;
    if (html.includes('name="password"') && !html.includes('role="alert"')) {
      pages.push('login');
      step = await browser.submit(
        step.url,
        html,
        { username: user.username, password: user.password },
        stopAt,
      );
    } else if (html.includes('name="decision"')) {
      pages.push('consent');
      step = await browser.submit(step.url, html, { decision }, stopAt);
    } else break;
  }
  return { html: step.html, status: step.response.status, pages };
}

export async function authCodeRequest(
  config: oc.Configuration,
  redirectUri: string,
  scope: string,
  extra: Record<string, string> = {},
) {
  const verifier = oc.randomPKCECodeVerifier();
  const state = oc.randomState();
  const url = oc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope,
    code_challenge: await oc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...extra,
  });
  return { url, verifier, state };
}

/** A complete authorization code flow: tokens for this user, app and scope. */
export async function userTokens(
  s: OAuthService,
  client: Pick<TestClient, 'clientId' | 'clientSecret'>,
  redirectUri: string,
  user: { username: string; password: string },
  scope: string,
  browser = new Browser(s),
) {
  const config = await configFor(s, client);
  const { url, verifier, state } = await authCodeRequest(config, redirectUri, scope);
  const r = await authorize(browser, url, user, 'allow', redirectUri);
  if (!r.callback) throw new Error(`authorization stopped on a page: ${r.html.slice(0, 500)}`);
  return oc.authorizationCodeGrant(config, r.callback, { pkceCodeVerifier: verifier, expectedState: state });
}
