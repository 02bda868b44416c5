// REST routes of accounts and profiles over HTTPS: each route's success and error, equal to what the same
// GraphQL operation returns for the same caller.
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../factories/accounts.js';
import { asOps, asUser } from '../support/actors.js';
import { PUBLIC_URL, pascalDeep, restOf, useRest } from './support.js';

const env = useRest({ resetEach: true });

let me: TestUser;
let token: string;
let opsToken: string;
beforeEach(async () => {
  me = await createUser(env.h, { phoneNumber: '+14155550123' });
  token = env.tokenFor(me.actor);
  opsToken = env.tokenFor(asOps());
});

const RATING = 'rating { id subjectType subjectId average count createdDateUtc lastModifiedDateUtc }';
const PROFILE = `id userId firstName lastName displayName phoneNumber description avatarUrl createdDateUtc lastModifiedDateUtc`;
const VERIFICATION = `id subjectType subjectId kind status evidence expiresDateUtc decidedDateUtc decidedById reason createdDateUtc lastModifiedDateUtc`;
const ACCOUNT = `id username roles status isVerifiedBorrower isCarOwner lastSignInDateUtc createdDateUtc lastModifiedDateUtc`;
const ACCOUNT_DEEP = `${ACCOUNT} profile { ${PROFILE} ${RATING} } verifications { ${VERIFICATION} } ${RATING}`;

describe('GET /api/useraccounts/{Id}', () => {
  it('answers the account with every embedded descendant, equal to the GraphQL userAccount', async () => {
    const r = await env.call('GET', `/api/useraccounts/${me.id}`, { token });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Object.keys(r.json)).toEqual(['UserAccount']);
    expect(pascalDeep(r.json)).toBe(true);
    const g = await env.h.ok<{ userAccount: unknown }>(
      me.actor,
      `query($id: UUID!) { userAccount(id: $id) { ${ACCOUNT_DEEP} } }`,
      {
        id: me.id,
      },
    );
    expect(r.json.UserAccount).toEqual(restOf(g.userAccount));
    expect(r.json.UserAccount.Profile.PhoneNumber).toBe('+14155550123');
    expect(r.json.UserAccount).not.toHaveProperty('LastSignInDateUtc');
  });

  it('embed=none leaves the embedded resources out and changes nothing else', async () => {
    const all = await env.call('GET', `/api/useraccounts/${me.id}`, { token });
    const none = await env.call('GET', `/api/useraccounts/${me.id}?embed=none`, { token });
    const { Profile, Verifications, Rating, ...rest } = all.json.UserAccount;
    expect([Profile, Verifications, Rating].every(Boolean)).toBe(true);
    expect(none.json.UserAccount).toEqual(rest);
  });

  it('is 404 for an unknown id or another user, 400 naming Id for a malformed one, 401 without a token', async () => {
    const other = await createUser(env.h);
    for (const id of [randomUUID(), other.id]) {
      const r = await env.call('GET', `/api/useraccounts/${id}`, { token });
      expect(r.status).toBe(404);
      expect(r.json).toEqual({
        ResponseStatus: {
          ErrorCode: 'NotFound',
          Message: expect.any(String),
          Errors: [],
          Meta: { Help: expect.stringMatching(/\/docs#error-NotFound$/) },
        },
      });
    }
    const bad = await env.call('GET', '/api/useraccounts/not-a-uuid', { token });
    expect(bad.status).toBe(400);
    expect(bad.json.ResponseStatus).toMatchObject({
      ErrorCode: 'InvalidFormat',
      Errors: [{ ErrorCode: 'InvalidFormat', FieldName: 'Id' }],
    });
    const anon = await env.call('GET', `/api/useraccounts/${me.id}`);
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toBe('Bearer realm="carshare"');
    expect(anon.json.ResponseStatus.ErrorCode).toBe('Unauthorized');
    const badToken = await env.call('GET', `/api/useraccounts/${me.id}`, { token: 'garbage' });
    expect(badToken.status).toBe(401);
    // The challenge /graphql gives an invalid token, from the one builder (src/shared/challenge.ts).
    expect(badToken.headers.get('www-authenticate')).toBe(
      'Bearer realm="carshare", error="invalid_token", error_description="The access token is invalid, expired or revoked"',
    );
  });
});

describe('GET /api/useraccounts', () => {
  it('searches with Metadata, equal to the GraphQL userAccounts page', async () => {
    await createUser(env.h);
    await createUser(env.h);
    const r = await env.call('GET', '/api/useraccounts?sort=username&limit=2', { token: opsToken });
    expect(r.status).toBe(200);
    const g = await env.h.ok<{ userAccounts: { total: number; nodes: unknown[] } }>(
      asOps(),
      `{ userAccounts(sort: "username", limit: 2) { total nodes { ${ACCOUNT} } } }`,
    );
    expect(r.json.UserAccounts).toEqual(restOf(g.userAccounts.nodes));
    expect(r.json.Metadata).toEqual({
      Total: g.userAccounts.total,
      Limit: 2,
      Offset: 0,
      Sort: { By: 'Username', Direction: 'Ascending' },
      Filter: { Fields: [] },
      Distinct: null,
    });
  });

  it('is 403 for a user lacking the scope, with the insufficient_scope challenge', async () => {
    const t = env.tokenFor(asUser(me.id, ['cars:read']));
    const r = await env.call('GET', '/api/useraccounts', { token: t });
    expect(r.status).toBe(403);
    expect(r.json.ResponseStatus.ErrorCode).toBe('Forbidden');
    expect(r.headers.get('www-authenticate')).toBe(
      'Bearer realm="carshare", error="insufficient_scope", scope="account:read"',
    );
    // /graphql names the scope it lacked alike.
    const graphql = await env.call('POST', '/graphql', {
      token: t,
      body: { query: '{ userAccounts { total } }' },
    });
    expect(graphql.status).toBe(403);
    expect(graphql.headers.get('www-authenticate')).toBe(r.headers.get('www-authenticate'));
  });
});

describe('POST /api/useraccounts', () => {
  it('signs up: 201, absolute Location that answers, the created envelope', async () => {
    const r = await env.call('POST', '/api/useraccounts', {
      body: {
        Username: 'Grace@Example.com',
        Password: 'cobol compilers rule 1959',
        FirstName: 'Grace',
        LastName: 'Hopper',
      },
    });
    expect(r.status).toBe(201);
    const id = r.json.UserAccount.Id;
    expect(r.headers.get('location')).toBe(`${PUBLIC_URL}/api/useraccounts/${id}`);
    expect(r.json.UserAccount).toMatchObject({
      Username: 'grace@example.com',
      Roles: ['user'],
      Status: 'Active',
    });
    const t = env.tokenFor(asUser(id));
    const get = await env.call('GET', new URL(r.headers.get('location')!).pathname, { token: t });
    expect(get.status).toBe(200);
    expect(get.json.UserAccount.Id).toBe(id);
  });

  it('names every invalid field in REST terms; the top-level code is the first one', async () => {
    const r = await env.call('POST', '/api/useraccounts', {
      body: { username: 'not-an-email', password: 'short', firstName: 'A', lastName: 'B' },
    });
    expect(r.status).toBe(400);
    expect(r.json.ResponseStatus.Errors.map((e: any) => [e.FieldName, e.ErrorCode])).toEqual([
      ['Username', 'InvalidFormat'],
      ['Password', 'TooShort'],
    ]);
    expect(r.json.ResponseStatus.ErrorCode).toBe('InvalidFormat');
    expect(r.json.ResponseStatus.Message).toBe(r.json.ResponseStatus.Errors[0].Message);
    const dup = await env.call('POST', '/api/useraccounts', {
      body: { username: me.username, password: 'another long passphrase', firstName: 'A', lastName: 'B' },
    });
    expect(dup.status).toBe(409);
    expect(dup.json.ResponseStatus.ErrorCode).toBe('AlreadyExists');
  });
});

describe('PATCH /api/useraccounts/{Id}', () => {
  it('changes only what is given: 202 with the account', async () => {
    const r = await env.call('PATCH', `/api/useraccounts/${me.id}`, {
      token,
      body: { username: 'new.name@example.com' },
    });
    expect(r.status).toBe(202);
    expect(r.json.UserAccount).toMatchObject({
      Id: me.id,
      Username: 'new.name@example.com',
      Status: 'Active',
    });
  });

  it('refuses a read-only property (400 naming it) and a status change by the user (403)', async () => {
    const ro = await env.call('PATCH', `/api/useraccounts/${me.id}`, {
      token,
      body: { IsVerifiedBorrower: true },
    });
    expect(ro.status).toBe(400);
    expect(ro.json.ResponseStatus.Errors[0]).toMatchObject({
      FieldName: 'IsVerifiedBorrower',
      ErrorCode: 'InvalidValue',
    });
    const st = await env.call('PATCH', `/api/useraccounts/${me.id}`, {
      token,
      body: { status: 'Suspended' },
    });
    expect(st.status).toBe(403);
  });
});

describe('PUT /api/useraccounts/{Id}/suspend and /reactivate', () => {
  it('ops suspend and reactivate: 202 with the account', async () => {
    const s = await env.call('PUT', `/api/useraccounts/${me.id}/suspend`, { token: opsToken });
    expect(s.status).toBe(202);
    expect(s.json.UserAccount.Status).toBe('Suspended');
    const r = await env.call('PUT', `/api/useraccounts/${me.id}/reactivate`, { token: opsToken });
    expect(r.status).toBe(202);
    expect(r.json.UserAccount.Status).toBe('Active');
  });

  it('a user may not suspend anyone (403); an unknown account is 404', async () => {
    expect((await env.call('PUT', `/api/useraccounts/${me.id}/suspend`, { token })).status).toBe(403);
    expect(
      (await env.call('PUT', `/api/useraccounts/${randomUUID()}/reactivate`, { token: opsToken })).status,
    ).toBe(404);
  });
});

describe('GET and PATCH /api/profiles/{Id}', () => {
  it('any authenticated caller reads public fields; PII only for the subject', async () => {
    const other = await createUser(env.h);
    const t = env.tokenFor(other.actor);
    const r = await env.call('GET', `/api/profiles/${me.profileId}`, { token: t });
    expect(r.status).toBe(200);
    const g = await env.h.ok<{ profile: unknown }>(
      other.actor,
      `query($id: UUID!) { profile(id: $id) { ${PROFILE} ${RATING} } }`,
      {
        id: me.profileId,
      },
    );
    expect(r.json.Profile).toEqual(restOf(g.profile));
    expect(r.json.Profile).not.toHaveProperty('PhoneNumber');
    expect((await env.call('GET', `/api/profiles/${randomUUID()}`, { token: t })).status).toBe(404);
  });

  it('the owner patches it (202); another user may not (403)', async () => {
    const r = await env.call('PATCH', `/api/profiles/${me.profileId}`, {
      token,
      body: { description: 'Drives carefully' },
    });
    expect(r.status).toBe(202);
    expect(r.json.Profile.Description).toBe('Drives carefully');
    const other = env.tokenFor((await createUser(env.h)).actor);
    const f = await env.call('PATCH', `/api/profiles/${me.profileId}`, {
      token: other,
      body: { description: 'x' },
    });
    expect(f.status).toBe(403);
  });
});
