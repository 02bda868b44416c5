// Authorization code with PKCE, sign-in and consent, and refresh: driven by openid-client and a cookie-keeping
// browser over HTTPS against the real service.
import * as oc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import {
  authCodeRequest,
  authorize,
  Browser,
  configFor,
  createClient,
  gql,
  type OAuthService,
  oauthError,
  signUp,
  startOAuthService,
  type TestClient,
  userTokens,
} from './support.js';

let s: OAuthService;
const clock = new ManualClock();
beforeAll(async () => {
  s = await startOAuthService({ clock });
});
afterAll(async () => s?.close());

const REDIRECT = 'https://app.example/callback';
const SCOPE = 'account:read cars:read';

const webApp = (extra: Partial<{ scopes: string[]; refresh: boolean }> = {}): Promise<TestClient> =>
  createClient(s, {
    grants: ['authorization_code'],
    scopes: extra.scopes ?? ['openid', 'account:read', 'account:write', 'cars:read', 'feedback:read'],
    redirectUris: [REDIRECT],
    refresh: extra.refresh ?? true,
  });

describe('authorization code with PKCE', () => {
  it('signs in, asks consent, and exchanges the code for an opaque access token and a refresh token', async () => {
    const user = await signUp(s);
    const app = await webApp();
    const config = await configFor(s, app);
    const { url, verifier, state } = await authCodeRequest(config, REDIRECT, `openid ${SCOPE}`);
    const browser = new Browser(s);
    const r = await authorize(browser, url, user);
    expect(r.pages).toEqual(['login', 'consent']);
    expect(r.callback?.origin + r.callback!.pathname).toBe(REDIRECT);
    expect(r.callback?.searchParams.get('iss')).toBe(s.issuer);
    const t = await oc.authorizationCodeGrant(config, r.callback!, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(t.expires_in).toBe(900);
    expect(t.access_token.split('.')).toHaveLength(1);
    expect(t.refresh_token).toBeTruthy();
    expect(t.scope?.split(' ').sort()).toEqual(['account:read', 'cars:read']);
    expect(t.claims()?.sub).toBe(user.id);
    const me = await gql(s, t.access_token, '{ me { id username } }');
    expect(me.data?.me).toEqual({ id: user.id, username: user.username });
  });

  it('shows the app name and each scope’s description on a page that cannot be framed or cached', async () => {
    const user = await signUp(s);
    const app = await createClient(s, {
      name: 'Fleet <Planner>',
      grants: ['authorization_code'],
      scopes: ['account:read', 'cars:read'],
      redirectUris: [REDIRECT],
    });
    const { url } = await authCodeRequest(await configFor(s, app), REDIRECT, SCOPE);
    const browser = new Browser(s);
    const login = await browser.follow(url.toString());
    expect(login.html).toContain('Fleet &#60;Planner&#62;');
    for (const res of [login.response]) {
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
    // No external assets: no src or href to anything.
    expect(login.html).not.toMatch(/\s(src|href)=/);
    const consent = await browser.submit(login.url, login.html, {
      username: user.username,
      password: user.password,
    });
    expect(consent.response.headers.get('cache-control')).toBe('no-store');
    expect(consent.response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(consent.html).toContain('Fleet &#60;Planner&#62; wants to access your Carshare account');
    expect(consent.html).toContain(
      'See your account, your profile and the evidence of your own verifications',
    );
    expect(consent.html).toContain('Search cars');
    // Deny and Allow side by side: Allow the primary button, Deny a secondary one.
    expect(consent.html).toMatch(
      /<button type="submit" name="decision" value="deny" class="secondary">Deny<\/button>/,
    );
    expect(consent.html).toMatch(/<button type="submit" name="decision" value="allow">Allow<\/button>/);
  });

  it('refuses a form posted without the page’s CSRF token', async () => {
    const user = await signUp(s);
    const app = await webApp();
    const { url } = await authCodeRequest(await configFor(s, app), REDIRECT, SCOPE);
    const browser = new Browser(s);
    const login = await browser.follow(url.toString());
    const action = /action="([^"]+)"/.exec(login.html)![1]!;
    const r = await browser.request(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        csrf: 'forged',
        username: user.username,
        password: user.password,
      }).toString(),
    });
    expect(r.status).toBe(400);
    const cross = await browser.request(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({
        csrf: /name="csrf" value="([^"]+)"/.exec(login.html)![1]!,
        username: user.username,
        password: user.password,
      }).toString(),
    });
    expect(cross.status).toBe(400);
  });

  it('remembers consent per user and app: a second authorization, even in a new browser, asks only to sign in', async () => {
    const user = await signUp(s);
    const app = await webApp();
    await userTokens(s, app, REDIRECT, user, SCOPE);
    const config = await configFor(s, app);
    const again = await authCodeRequest(config, REDIRECT, SCOPE);
    const r = await authorize(new Browser(s), again.url, user);
    expect(r.pages).toEqual(['login']);
    expect(r.callback?.searchParams.get('code')).toBeTruthy();
    // Asking for more asks consent again, for the new scope only.
    const wider = await authCodeRequest(config, REDIRECT, `${SCOPE} feedback:read`);
    const browser = new Browser(s);
    const login = await browser.follow(wider.url.toString());
    const consent = await browser.submit(login.url, login.html, {
      username: user.username,
      password: user.password,
    });
    expect(consent.html).toContain('Read feedback and ratings');
    expect(consent.html).not.toContain('Search cars');
  });

  it('answers Deny with access_denied at the redirect URI', async () => {
    const user = await signUp(s);
    const app = await webApp();
    const { url, state } = await authCodeRequest(await configFor(s, app), REDIRECT, SCOPE);
    const r = await authorize(new Browser(s), url, user, 'deny');
    expect(r.callback?.searchParams.get('error')).toBe('access_denied');
    expect(r.callback?.searchParams.get('state')).toBe(state);
  });

  it('refuses a request without PKCE', async () => {
    const app = await webApp();
    const config = await configFor(s, app);
    const url = oc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: SCOPE, state: 'xyz' });
    const r = await new Browser(s).request(url.toString());
    expect(r.status).toBe(303);
    const to = new URL(r.headers.get('location')!);
    expect(to.origin + to.pathname).toBe(REDIRECT);
    expect(to.searchParams.get('error')).toBe('invalid_request');
    expect(to.searchParams.get('error_description')).toMatch(/PKCE/);
  });

  it('refuses a scope the app is not allowed with invalid_scope', async () => {
    const app = await webApp({ scopes: ['account:read'] });
    const { url } = await authCodeRequest(await configFor(s, app), REDIRECT, 'account:read users:write');
    const r = await new Browser(s).request(url.toString());
    const to = new URL(r.headers.get('location')!);
    expect(to.searchParams.get('error')).toBe('invalid_scope');
  });

  it('refuses a wrong verifier, a reused code and a wrong redirect URI with invalid_grant', async () => {
    const user = await signUp(s);
    const app = await createClient(s, {
      grants: ['authorization_code'],
      scopes: ['account:read', 'cars:read'],
      redirectUris: [REDIRECT, 'https://app.example/other'],
    });
    const config = await configFor(s, app);
    const browser = new Browser(s);
    const get = async () => {
      const req = await authCodeRequest(config, REDIRECT, SCOPE);
      const r = await authorize(browser, req.url, user);
      return { ...req, callback: r.callback! };
    };
    const a = await get();
    expect(
      (
        await oauthError(
          oc.authorizationCodeGrant(config, a.callback, {
            pkceCodeVerifier: oc.randomPKCECodeVerifier(),
            expectedState: a.state,
          }),
        )
      ).error,
    ).toBe('invalid_grant');

    const b = await get();
    const first = await oc.authorizationCodeGrant(config, b.callback, {
      pkceCodeVerifier: b.verifier,
      expectedState: b.state,
    });
    expect((await gql(s, first.access_token, '{ me { id } }')).data?.me.id).toBe(user.id);
    expect(
      (
        await oauthError(
          oc.authorizationCodeGrant(config, b.callback, {
            pkceCodeVerifier: b.verifier,
            expectedState: b.state,
          }),
        )
      ).error,
    ).toBe('invalid_grant');
    // Reuse of a code revokes what the code gave.
    expect((await gql(s, first.access_token, '{ me { id } }')).status).toBe(401);

    const c = await get();
    const code = c.callback.searchParams.get('code')!;
    const r = await s.fetch('/api/oauth/token', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: c.verifier,
        redirect_uri: 'https://app.example/other',
      }).toString(),
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('shows an error page for an unregistered redirect URI and does not redirect', async () => {
    const app = await webApp();
    const { url } = await authCodeRequest(await configFor(s, app), 'https://evil.example/cb', SCOPE);
    const r = await new Browser(s).request(url.toString());
    expect(r.status).toBe(400);
    expect(r.headers.get('location')).toBeNull();
    expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await r.text();
    expect(html).toContain('redirect_uri');
    expect(html).not.toMatch(/\s(src|href)=/);
  });

  it('redeems one code exactly once when two redemptions race', async () => {
    const user = await signUp(s);
    const app = await webApp();
    const config = await configFor(s, app);
    const req = await authCodeRequest(config, REDIRECT, SCOPE);
    const r = await authorize(new Browser(s), req.url, user);
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code: r.callback!.searchParams.get('code')!,
      code_verifier: req.verifier,
      redirect_uri: REDIRECT,
    }).toString();
    const auth = `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`;
    const results = await Promise.all(
      [1, 2, 3, 4].map(() =>
        s.fetch('/api/oauth/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth },
          body,
        }),
      ),
    );
    expect(results.map((x) => x.status).sort()).toEqual([200, 400, 400, 400]);
  });
});

describe('sign-in', () => {
  it('locks an account for 5 minutes after 5 wrong passwords', async () => {
    const user = await signUp(s);
    const app = await webApp();
    const config = await configFor(s, app);
    const { url } = await authCodeRequest(config, REDIRECT, SCOPE);
    const browser = new Browser(s);
    let page = await browser.follow(url.toString());
    for (let i = 1; i <= 5; i++) {
      page = await browser.submit(page.url, page.html, { username: user.username, password: `wrong ${i}` });
      expect(page.response.status).toBe(200);
      if (i < 5) expect(page.html).toContain('Wrong e-mail address or password');
    }
    expect(page.html).toContain('locked');
    // The right password is refused while locked…
    page = await browser.submit(page.url, page.html, { username: user.username, password: user.password });
    expect(page.html).toContain('locked');
    // …and accepted once the 5 minutes have passed.
    clock.advance(5 * 60_000 + 1000);
    page = await browser.submit(page.url, page.html, { username: user.username, password: user.password });
    expect(page.html).toContain('name="decision"');
    const rows = await s.sql<{ failed_sign_ins: number; last_sign_in_date_utc: Date }>(
      'select failed_sign_ins, last_sign_in_date_utc from user_account where id = ?',
      [user.id],
    );
    expect(rows[0]?.failed_sign_ins).toBe(0);
    expect(rows[0]?.last_sign_in_date_utc).toBeTruthy();
  });

  it('does not tell an unknown username from a wrong password', async () => {
    const app = await webApp();
    const { url } = await authCodeRequest(await configFor(s, app), REDIRECT, SCOPE);
    const browser = new Browser(s);
    const page = await browser.follow(url.toString());
    const r = await browser.submit(page.url, page.html, {
      username: 'nobody@example.com',
      password: 'whatever it is',
    });
    expect(r.html).toContain('Wrong e-mail address or password');
  });
});

describe('refresh', () => {
  it('renews without consent, narrows scope on request, refuses a wider one', async () => {
    const user = await signUp(s);
    const app = await webApp();
    const config = await configFor(s, app);
    const t = await userTokens(s, app, REDIRECT, user, SCOPE);
    const r1 = await oc.refreshTokenGrant(config, t.refresh_token!);
    expect(r1.access_token).not.toBe(t.access_token);
    expect(r1.scope?.split(' ').sort()).toEqual(['account:read', 'cars:read']);
    expect((await gql(s, r1.access_token, '{ me { id } }')).data?.me.id).toBe(user.id);
    const narrow = await oc.refreshTokenGrant(config, r1.refresh_token!, { scope: 'cars:read' });
    expect(narrow.scope).toBe('cars:read');
    expect(
      (
        await oauthError(
          oc.refreshTokenGrant(config, narrow.refresh_token!, { scope: `${SCOPE} feedback:read` }),
        )
      ).error,
    ).toBe('invalid_scope');
  });

  it('is not issued to an app without AllowRefresh', async () => {
    const user = await signUp(s);
    const app = await webApp({ refresh: false });
    const t = await userTokens(s, app, REDIRECT, user, SCOPE);
    expect(t.refresh_token).toBeUndefined();
  });

  it('refuses another client’s refresh token', async () => {
    const user = await signUp(s);
    const a = await webApp();
    const b = await webApp();
    const t = await userTokens(s, a, REDIRECT, user, SCOPE);
    expect((await oauthError(oc.refreshTokenGrant(await configFor(s, b), t.refresh_token!))).error).toBe(
      'invalid_grant',
    );
  });

  it('fails after the refresh token is revoked, and the grant’s access tokens die with it', async () => {
    const user = await signUp(s);
    const app = await webApp();
    const config = await configFor(s, app);
    const t = await userTokens(s, app, REDIRECT, user, SCOPE);
    expect((await gql(s, t.access_token, '{ me { id } }')).status).toBe(200);
    await oc.tokenRevocation(config, t.refresh_token!);
    expect((await oauthError(oc.refreshTokenGrant(config, t.refresh_token!))).error).toBe('invalid_grant');
    expect((await gql(s, t.access_token, '{ me { id } }')).status).toBe(401);
  });

  it('treats a used refresh token presented again as a replay: the whole grant is revoked (CONTRACT §14)', async () => {
    const user = await signUp(s);
    const app = await webApp();
    const config = await configFor(s, app);
    const t = await userTokens(s, app, REDIRECT, user, SCOPE);
    const next = await oc.refreshTokenGrant(config, t.refresh_token!);
    expect((await gql(s, next.access_token, '{ me { id } }')).status).toBe(200);
    // Presented again, even at once: invalid_grant, and every token of the grant stops working.
    expect((await oauthError(oc.refreshTokenGrant(config, t.refresh_token!))).error).toBe('invalid_grant');
    expect((await gql(s, next.access_token, '{ me { id } }')).status).toBe(401);
    expect((await gql(s, t.access_token, '{ me { id } }')).status).toBe(401);
    expect((await oauthError(oc.refreshTokenGrant(config, next.refresh_token!))).error).toBe('invalid_grant');
  });

  it('gives exactly one success when one rotating refresh token is redeemed twice at once', async () => {
    const user = await signUp(s);
    const app = await webApp();
    const config = await configFor(s, app);
    const t = await userTokens(s, app, REDIRECT, user, SCOPE);
    const results = await Promise.allSettled([
      oc.refreshTokenGrant(config, t.refresh_token!),
      oc.refreshTokenGrant(config, t.refresh_token!),
      oc.refreshTokenGrant(config, t.refresh_token!),
    ]);
    const ok = results.filter((r) => r.status === 'fulfilled');
    expect(ok).toHaveLength(1);
    // The others are invalid_grant: a redemption that lost the race at the database, or one that came after the
    // exchange and so is a reuse, which revokes the grant (CONTRACT §14) — never a second set of tokens.
    for (const r of results.filter((x) => x.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason).toMatchObject({ error: 'invalid_grant' });
  });
});
