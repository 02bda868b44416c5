// Role and scope `platform` (CONTRACT §22): the role is held only by accounts of the default car share, on every path
// that sets roles; the scope is asked only by apps allowed it, granted only by holders of the role, and given to a
// default-car-share app through client credentials; it confers no right to any car share's data.
import * as oc from 'openid-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Actor, apiScopes } from '../../src/access/actor.js';
import { isPlatformActor } from '../../src/access/platform.js';
import { createUserFromCli } from '../../src/accounts/user-account.cli.js';
import { npmRun } from '../support/command.js';
import {
  authCodeRequest,
  Browser,
  configFor,
  gql,
  type OAuthService,
  signUp,
  userTokens,
} from './support.js';
import { startTwoCarShares, type TwoCarShares } from './two-car-shares.js';

let t: TwoCarShares;
beforeAll(async () => {
  t = await startTwoCarShares();
});
afterAll(async () => t?.close());

const REDIRECT = 'https://platform-tool.example/callback';
const CREATE = `mutation($input: CreateUserAccountInput!) { createUserAccount(input: $input) { id roles } }`;
const UPDATE = `mutation($id: UUID!, $input: UpdateUserAccountInput!) {
  updateUserAccount(id: $id, input: $input) { id roles } }`;
const newUser = (roles: string[]) => ({
  username: `p${Math.random().toString(36).slice(2)}@example.com`,
  password: 'a long and unusual passphrase',
  firstName: 'Pat',
  lastName: 'Form',
  roles,
});

async function rest(at: OAuthService, token: string, method: string, path: string, body: unknown) {
  const r = await at.fetch(path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: (await r.json()) as any };
}

describe('role platform', () => {
  it('is assigned in the default car share, and refused elsewhere with 400 InvalidValue naming Roles', async () => {
    const inA = await gql(t.A, await t.opsToken('A'), CREATE, { input: newUser(['platform']) });
    expect(inA.errors).toBeUndefined();
    expect(inA.data?.createUserAccount.roles).toEqual(['user', 'platform']);

    const opsB = await t.opsToken('B');
    const viaGraphQL = await gql(t.B, opsB, CREATE, { input: newUser(['ops', 'platform']) });
    expect(viaGraphQL.errors?.[0].extensions).toMatchObject({ code: 'InvalidValue' });
    expect(JSON.stringify(viaGraphQL.errors)).toContain('platform');
    const viaRest = await rest(t.B, opsB, 'POST', '/api/useraccounts', {
      ...newUser([]),
      Roles: ['platform'],
    });
    expect(viaRest.status).toBe(400);
    expect(viaRest.json.ResponseStatus.ErrorCode).toBe('InvalidValue');
    expect(viaRest.json.ResponseStatus.Errors).toContainEqual(
      expect.objectContaining({ ErrorCode: 'InvalidValue', FieldName: 'Roles' }),
    );

    // Changing an existing account's roles is the same rule.
    const plain = await gql(t.B, opsB, CREATE, { input: newUser([]) });
    const id = plain.data?.createUserAccount.id as string;
    const patched = await rest(t.B, opsB, 'PATCH', `/api/useraccounts/${id}`, {
      Roles: ['user', 'platform'],
    });
    expect(patched.status).toBe(400);
    expect(patched.json.ResponseStatus.Errors[0]).toMatchObject({ FieldName: 'Roles' });
    const upInA = await gql(t.A, await t.opsToken('A'), UPDATE, {
      id: (await gql(t.A, await t.opsToken('A'), CREATE, { input: newUser([]) })).data?.createUserAccount.id,
      input: { roles: ['user', 'platform'] },
    });
    expect(upInA.data?.updateUserAccount.roles).toEqual(['user', 'platform']);
  });

  it('create-user --platform makes one in the default car share, and exits 2 with a message elsewhere', async () => {
    const made = await createUserFromCli(
      t.s.service.db,
      ['--username', newUser([]).username, '--password', 'a long and unusual passphrase', '--platform'],
      { id: t.aId, isDefault: true },
    );
    expect(made.Roles).toEqual(['user', 'platform']);

    const r = await admin(
      'create-user',
      '--username',
      newUser([]).username,
      '--password',
      'a long and unusual passphrase',
      '--platform',
      '--car-share',
      t.B.origin,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--platform');
    expect(r.stderr).toContain('default car share');
    expect(r.stdout).toBe('');
    const [row] = await t.sql<{ n: string }>(
      `select count(*) as n from user_account where car_share_id = ? and roles @> '["platform"]'`,
      [t.bId],
    );
    expect(Number(row?.n)).toBe(0);
  }, 120_000);
});

describe('scope platform', () => {
  it('is granted by a holder of the role, through an app allowed it', async () => {
    const user = newUser(['platform']);
    await gql(t.A, await t.opsToken('A'), CREATE, { input: user });
    const app = await t.clientIn(t.aId, {
      grants: ['authorization_code'],
      scopes: ['platform'],
      redirectUris: [REDIRECT],
    });
    const browser = new Browser(t.A);
    const { url } = await authCodeRequest(await configFor(t.A, app), REDIRECT, 'platform');
    const login = await browser.follow(url.toString());
    const consent = await browser.submit(login.url, login.html, {
      username: user.username,
      password: user.password,
    });
    expect(consent.html).toContain('Administer the car shares of the platform');
    const tokens = await userTokens(t.A, app, REDIRECT, user, 'platform', browser);
    expect(tokens.scope).toBe('platform');
    // It confers nothing of the car share's own data.
    const r = await gql(t.A, tokens.access_token, '{ userAccounts { total } }');
    expect(r.errors?.[0].extensions.code).toBe('Forbidden');
  });

  it('is never granted by an account without the role', async () => {
    const user = await signUp(t.A);
    const app = await t.clientIn(t.aId, {
      grants: ['authorization_code'],
      scopes: ['platform', 'account:read'],
      redirectUris: [REDIRECT],
    });
    const tokens = await userTokens(t.A, app, REDIRECT, user, 'platform account:read');
    expect(tokens.scope).toBe('account:read');
  });

  it('is refused to an app not allowed it (invalid_scope)', async () => {
    const app = await t.clientIn(t.aId, {
      grants: ['client_credentials'],
      scopes: ['account:read', 'users:read'],
    });
    const config = await configFor(t.A, app);
    await expect(oc.clientCredentialsGrant(config, { scope: 'platform' })).rejects.toMatchObject({
      error: 'invalid_scope',
    });
  });

  it('reaches a default-car-share app through client credentials; other car shares’ apps cannot be allowed it', async () => {
    const app = await t.clientIn(t.aId, { grants: ['client_credentials'], scopes: ['platform'] });
    const tokens = await oc.clientCredentialsGrant(await configFor(t.A, app), { scope: 'platform' });
    expect(tokens.scope).toBe('platform');
    const r = await gql(t.A, tokens.access_token, '{ userAccounts { total } }');
    expect(r.errors?.[0].extensions.code).toBe('Forbidden');

    await expect(
      t.clientIn(t.bId, { grants: ['client_credentials'], scopes: ['platform'] }),
    ).rejects.toMatchObject({ code: 'InvalidValue' });
  });
});

describe('isPlatformActor', () => {
  const user = (roles: Actor['roles'], scopes: Actor['scopes']): Actor => ({
    kind: 'user',
    id: 'u',
    roles,
    scopes,
  });
  const app: Actor = { kind: 'clientapplication', id: 'c', roles: [], scopes: ['platform'] };
  it('needs the scope in the default car share, and a user also needs the role', () => {
    const dflt = { isDefault: true };
    expect(isPlatformActor(user(['user', 'platform'], ['platform']), dflt)).toBe(true);
    expect(isPlatformActor(app, dflt)).toBe(true);
    expect(isPlatformActor(user(['user', 'platform'], ['platform']), { isDefault: false })).toBe(false);
    expect(isPlatformActor(app, { isDefault: false })).toBe(false);
    expect(isPlatformActor(user(['user'], ['platform']), dflt)).toBe(false);
    expect(
      isPlatformActor(
        user(
          ['user', 'platform', 'ops'],
          apiScopes.filter((s) => s !== 'platform'),
        ),
        dflt,
      ),
    ).toBe(false);
  });
});

/** `npm run admin` as an operator runs it, against the test database and this service's PUBLIC_URL. */
const admin = (...args: string[]) =>
  npmRun('admin', args, { DATABASE_URL: inject('databaseUrl'), PUBLIC_URL: t.s.origin });
