// No token, code, client secret, session id or password is kept in clear: the whole database and every log line
// are searched for the values a complete set of flows handed out.
import * as oc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { deploymentSql } from '../../src/db/scope.js';
import {
  authCodeRequest,
  authorize,
  Browser,
  configFor,
  createClient,
  gql,
  type OAuthService,
  signUp,
  startOAuthService,
} from './support.js';

let s: OAuthService;
beforeAll(async () => {
  s = await startOAuthService();
});
afterAll(async () => s?.close());

const REDIRECT = 'https://app.example/callback';

it('keeps no secret in clear in the database or the logs', async () => {
  const secrets: string[] = [];
  const user = await signUp(s, { password: 'a very particular passphrase 9137' });
  secrets.push(user.password);

  const machine = await createClient(s, { grants: ['client_credentials'], scopes: ['users:read'] });
  secrets.push(machine.clientSecret);
  const mc = await configFor(s, machine);
  const cc = await oc.clientCredentialsGrant(mc, { scope: 'users:read' });
  secrets.push(cc.access_token);
  await gql(s, cc.access_token, '{ userAccounts { total } }');
  await gql(s, `${cc.access_token}x`, '{ userAccounts { total } }');
  await oc.tokenIntrospection(mc, cc.access_token);

  const web = await createClient(s, {
    grants: ['authorization_code'],
    scopes: ['openid', 'account:read'],
    redirectUris: [REDIRECT],
    refresh: true,
  });
  secrets.push(web.clientSecret);
  const wc = await configFor(s, web);
  const browser = new Browser(s);
  // A wrong password first, so a failed sign-in is logged too.
  const req0 = await authCodeRequest(wc, REDIRECT, 'openid account:read');
  const page = await browser.follow(req0.url.toString());
  await browser.submit(page.url, page.html, { username: user.username, password: 'wrong passphrase 4242' });
  secrets.push('wrong passphrase 4242');
  const req = await authCodeRequest(wc, REDIRECT, 'openid account:read');
  const r = await authorize(browser, req.url, user);
  const code = r.callback!.searchParams.get('code')!;
  // The session cookie is a bearer credential for the sign-in session. (The interaction cookies hold the
  // interaction's id, which is in its URL; they are signed, so the id alone opens nothing.)
  secrets.push(code, browser.cookie('_session')!);
  const t = await oc.authorizationCodeGrant(wc, r.callback!, {
    pkceCodeVerifier: req.verifier,
    expectedState: req.state,
  });
  secrets.push(t.access_token, t.refresh_token!, req.verifier);
  const refreshed = await oc.refreshTokenGrant(wc, t.refresh_token!);
  secrets.push(refreshed.access_token, refreshed.refresh_token!);
  await gql(s, refreshed.access_token, '{ me { id } }');
  await oc.tokenRevocation(wc, refreshed.refresh_token!);

  // Every table, every car share's rows: as the DATABASE_URL user, whom no policy binds in tests.
  const every = <T>(query: string) => deploymentSql<T>(s.service.db.orm, query);
  const tables = await every<{ tablename: string }>(
    `select tablename from pg_tables where schemaname = 'public'`,
  );
  let dump = '';
  for (const { tablename } of tables) {
    const rows = await every<{ r: string }>(`select t::text as r from "${tablename}" t`);
    dump += rows.map((x) => x.r).join('\n');
  }
  expect(dump).toContain(user.username);
  const logs = s.logs.join('\n');
  expect(logs).toContain('/api/oauth/token');
  for (const secret of secrets) {
    expect(secret.length).toBeGreaterThanOrEqual(20);
    expect(dump.includes(secret), `a secret is stored in clear: ${secret.slice(0, 6)}…`).toBe(false);
    const line = s.logs.find((l) => l.includes(secret));
    expect(line, `a secret is logged: ${secret.slice(0, 6)}…`).toBeUndefined();
  }
});
