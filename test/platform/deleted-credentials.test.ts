// CONTRACT §23 "Deleted", end to end with the real authorization server and the admin command line: a suspended car
// share deleted with `delete-car-share` (a wrong --confirm changes nothing), its rows purged, and its host given to
// a new car share with new keys, where nothing the deleted one issued works: its access token 401, its client
// `invalid_client`, its authorization code and refresh token `invalid_grant`.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as oc from 'openid-client';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { suspendCarShare } from '../../src/carshares/car-share.lifecycle.js';
import { createClientFromCli } from '../../src/clientapps/client-application.cli.js';
import { localCaCertPath } from '../../src/local-ca.js';
import {
  authCodeRequest,
  authorize,
  Browser,
  configFor,
  gql,
  type OAuthService,
  startOAuthService,
  type TestClient,
} from '../oauth/support.js';
import { root, runCommand } from '../support/command.js';
import { waitFor } from '../support/wait.js';
import { stored } from './support.js';

const REDIRECT = 'https://app.example/callback';
const loopback = ((_host: string, opts: { all?: boolean }, cb: (...a: unknown[]) => void) =>
  opts?.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)) as LookupFunction;

let s: OAuthService;
let dataDir: string;

/** `npm run admin` as an operator runs it (from the sources), against the test database and this PUBLIC_URL. */
const admin = (...args: string[]) =>
  runCommand(join(root, 'node_modules/.bin/tsx'), ['src/admin.ts', ...args], {
    PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH ?? ''}`,
    DATABASE_URL: inject('databaseUrl'),
    PUBLIC_URL: s.origin,
    DATA_DIR: dataDir,
  });

/** The service as seen at a car share's BaseUrl, trusting the local CA that certifies its host. */
function site(baseUrl: string, agent: Agent): OAuthService {
  const doFetch = (pathOrUrl: string, init: Parameters<typeof fetch>[1] = {}) =>
    fetch(pathOrUrl.startsWith('https://') ? pathOrUrl : `${baseUrl}${pathOrUrl}`, {
      ...init,
      dispatcher: agent,
    });
  return {
    ...s,
    origin: baseUrl,
    issuer: `${baseUrl}/api/oauth`,
    agent,
    fetch: doFetch as OAuthService['fetch'],
    customFetch: ((url: string, options: Parameters<typeof fetch>[1]) =>
      doFetch(String(url), options)) as unknown as OAuthService['customFetch'],
  };
}

async function clientIn(carShareId: string, grants: string[], scopes: string[]): Promise<TestClient> {
  const args = ['--name', `App ${randomUUID().slice(0, 8)}`, '--scopes', scopes.join(' '), '--refresh'];
  for (const g of grants) args.push('--grant', g);
  if (grants.includes('authorization_code')) args.push('--redirect-uri', REDIRECT);
  const r = await createClientFromCli(s.service.db, args, carShareId);
  return { id: r.Id, clientId: r.ClientId, clientSecret: r.ClientSecret };
}

const basic = (c: Pick<TestClient, 'clientId' | 'clientSecret'>) =>
  `Basic ${Buffer.from(`${encodeURIComponent(c.clientId)}:${encodeURIComponent(c.clientSecret)}`).toString('base64')}`;

async function token(at: OAuthService, client: TestClient, form: Record<string, string>) {
  const r = await at.fetch('/api/oauth/token', {
    method: 'POST',
    headers: { authorization: basic(client), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: r.status, body: (await r.json()) as Record<string, string> };
}

const served = (at: OAuthService, id: string) =>
  waitFor(
    async () => {
      const r = await at.fetch('/', { headers: { accept: 'application/json' } }).catch(() => undefined);
      return ((await r?.json()) as { CarShareId?: string } | undefined)?.CarShareId === id;
    },
    { what: `car share ${id} served`, timeoutMs: 10_000 },
  );

beforeAll(async () => {
  s = await startOAuthService();
  dataDir = mkdtempSync(join(tmpdir(), 'carshare-admin-'));
});
afterAll(async () => {
  await s?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a deleted car share’s host given to a new car share', () => {
  it('answers nothing the deleted one issued', async () => {
    const port = new URL(s.origin).port;
    const url = `https://gone.localhost:${port}`;
    const made = await admin(
      'create-car-share',
      '--url',
      url,
      '--name',
      'Gone',
      '--ops-email',
      'ops@gone.example',
    );
    expect(made.code, made.stderr).toBe(0);
    const oldId = JSON.parse(made.stdout).Id as string;
    const caFile = localCaCertPath(dirname(dirname(s.service.certPath)));
    await waitFor(() => existsSync(caFile), { what: 'the local CA' });
    const agent = new Agent({
      connect: { ca: [s.service.cert, readFileSync(caFile, 'utf8')], lookup: loopback },
    });
    const at = site(url, agent);
    await served(at, oldId);

    // Everything the old car share issues: a client's token, a user's access and refresh tokens, a code not redeemed.
    const machine = await clientIn(oldId, ['client_credentials'], ['cars:read']);
    const cc = await token(at, machine, { grant_type: 'client_credentials' });
    expect(cc.status).toBe(200);
    const web = await clientIn(oldId, ['authorization_code'], ['openid', 'cars:read']);
    const signUp = await gql(
      at,
      undefined,
      'mutation($i: CreateUserAccountInput!) { createUserAccount(input: $i) { id } }',
      {
        i: {
          username: 'u@gone.example',
          password: 'a long and unusual passphrase',
          firstName: 'U',
          lastName: 'G',
        },
      },
    );
    expect(signUp.errors).toBeUndefined();
    const user = { username: 'u@gone.example', password: 'a long and unusual passphrase' };
    const config = await configFor(at, web);
    const first = await authCodeRequest(config, REDIRECT, 'openid cars:read offline_access', {
      prompt: 'consent',
    });
    const signedIn = await authorize(new Browser(at), first.url, user, 'allow', REDIRECT);
    const tokens = await oc.authorizationCodeGrant(config, signedIn.callback!, {
      pkceCodeVerifier: first.verifier,
      expectedState: first.state,
    });
    expect(tokens.refresh_token).toBeTruthy();
    const second = await authCodeRequest(config, REDIRECT, 'openid cars:read');
    const pending = await authorize(new Browser(at), second.url, user, 'allow', REDIRECT);
    const code = pending.callback!.searchParams.get('code')!;
    const cars = (t: string) => at.fetch('/api/cars', { headers: { authorization: `Bearer ${t}` } });
    expect((await cars(cc.body.access_token!)).status).toBe(200);
    expect((await cars(tokens.access_token)).status).toBe(200);

    // Only a suspended car share: refused while active, naming --car-share.
    const active = await admin('delete-car-share', '--car-share', oldId, '--confirm', 'gone.localhost');
    expect(active.code).toBe(1);
    expect(JSON.parse(active.stderr)).toMatchObject({ ErrorCode: 'InvalidStateTransition' });
    expect((await cars(cc.body.access_token!)).status).toBe(200);
    await suspendCarShare(s.service.db.orm, oldId, 'closing', { actorType: 'Cli' }, new Date());
    // A wrong --confirm: exit 1 naming it, nothing changed.
    const wrong = await admin('delete-car-share', '--car-share', oldId, '--confirm', 'other.localhost');
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stderr).Errors[0].FieldName).toBe('--confirm');
    expect(wrong.stdout).toBe('');
    expect(
      await stored('select status from car_share where id = $1 and deleted_date_utc is null', [oldId]),
    ).toEqual([{ status: 'Suspended' }]);
    expect((await admin('delete-car-share', '--car-share', oldId)).code).toBe(2);
    // The default car share and an unknown one are refused, naming --car-share.
    const dflt = await admin('delete-car-share', '--car-share', s.origin, '--confirm', 'localhost');
    expect(dflt.code).toBe(1);
    expect(JSON.parse(dflt.stderr)).toMatchObject({
      ErrorCode: 'Conflict',
      Meta: { Reason: 'DefaultCarShare' },
    });
    const unknown = await admin('delete-car-share', '--car-share', randomUUID(), '--confirm', 'x');
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr).Message).toContain('--car-share');
    const deleted = await admin('delete-car-share', '--car-share', url, '--confirm', 'GONE.localhost');
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ Id: oldId, Deleted: true });
    // The command line purged it before returning.
    expect(await stored('select id from car_share where id = $1', [oldId])).toEqual([]);
    expect(await stored('select id from user_account where car_share_id = $1', [oldId])).toEqual([]);
    const audit = await stored<{ actor_type: string; action: string }>(
      'select actor_type, action from platform_audit_entry where about_car_share_id = $1',
      [oldId],
    );
    expect(audit).toEqual([{ actor_type: 'Cli', action: 'deleteCarShare' }]);

    const again = await admin(
      'create-car-share',
      '--url',
      url,
      '--name',
      'New',
      '--ops-email',
      'ops@new.example',
    );
    expect(again.code, again.stderr).toBe(0);
    const newId = JSON.parse(again.stdout).Id as string;
    await served(at, newId);
    const newKid = ((await (await at.fetch('/api/oauth/jwks')).json()) as { keys: { kid: string }[] }).keys;
    expect(newKid.length).toBeGreaterThan(0);

    // Nothing the deleted car share issued works at the new one.
    const refused = await cars(tokens.access_token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await cars(cc.body.access_token!)).status).toBe(401);
    const oldClient = await token(at, machine, { grant_type: 'client_credentials' });
    expect(oldClient.status).toBe(401);
    expect(oldClient.body.error).toBe('invalid_client');
    // A client of the new car share presenting the old code and refresh token.
    const fresh = await clientIn(newId, ['authorization_code'], ['openid', 'cars:read']);
    const refresh = await token(at, fresh, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
    });
    expect(refresh.body.error).toBe('invalid_grant');
    const redeem = await token(at, fresh, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: second.verifier,
    });
    expect(redeem.body.error).toBe('invalid_grant');
    await agent.close();
  }, 120_000);
});
