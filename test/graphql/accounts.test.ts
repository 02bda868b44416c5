// Accounts and profiles over GraphQL on real PostgreSQL: success, validation, permissions, events.
import { describe, expect, it } from 'vitest';
import { createUser, outbox } from '../factories/accounts.js';
import { anonymous, asClient, asOps, asUser, scopesWithout } from '../support/actors.js';
import { errorOf, useHarness } from '../support/harness.js';

const h = useHarness();

const CREATE = `mutation($input: CreateUserAccountInput!) {
  createUserAccount(input: $input) { id username roles status isVerifiedBorrower createdDateUtc
    profile { id userId firstName lastName displayName phoneNumber }
    verifications { kind status } rating { count average } } }`;
const valid = {
  username: 'Grace.Hopper@Example.com',
  password: 'cobol compilers rule 1959',
  firstName: 'Grace',
  lastName: 'Hopper',
};

describe('createUserAccount', () => {
  it('signs up anyone: lowercased username, profile, Unverified required verifications, zero rating, event', async () => {
    const d = await h.ok<{ createUserAccount: Record<string, any> }>(anonymous, CREATE, {
      input: { ...valid, phoneNumber: '+14155550123' },
    });
    const u = d.createUserAccount;
    expect(u.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(u.username).toBe('grace.hopper@example.com');
    expect(u.roles).toEqual(['user']);
    expect(u.status).toBe('Active');
    expect(u.isVerifiedBorrower).toBe(false);
    expect(u.createdDateUtc).toBe('2026-07-01T10:00:00.000Z');
    expect(u.profile).toMatchObject({
      userId: u.id,
      firstName: 'Grace',
      lastName: 'Hopper',
      displayName: 'Grace H.',
    });
    // Anonymous callers do not see PII.
    expect(u.profile.phoneNumber).toBeNull();
    expect(u.verifications.map((v: { kind: string }) => v.kind).sort()).toEqual([
      'DriversLicense',
      'Email',
      'PhoneNumber',
    ]);
    expect(u.verifications.every((v: { status: string }) => v.status === 'Unverified')).toBe(true);
    expect(u.rating).toEqual({ count: 0, average: null });
    const events = await outbox(h);
    expect(events).toHaveLength(1);
    expect(events[0]!.name).toBe('useraccount_create');
    expect(events[0]!.payload).toEqual({
      Name: 'useraccount_create',
      OccurredDateUtc: '2026-07-01T10:00:00.000Z',
      Id: u.id,
      CreatedDateUtc: '2026-07-01T10:00:00.000Z',
    });
    expect(events[0]!.audience_user_ids).toEqual([u.id]);
  });

  it.each([
    ['username', { username: '' }, 'NotEmpty'],
    ['username', { username: 'not-an-email' }, 'InvalidFormat'],
    ['password', { password: 'short' }, 'TooShort'],
    ['password', { password: 'x'.repeat(161) }, 'TooLong'],
    ['password', { password: 'password1' }, 'InvalidValue'],
    ['firstName', { firstName: ' ' }, 'NotEmpty'],
    ['lastName', { lastName: 'x'.repeat(101) }, 'TooLong'],
    ['phoneNumber', { phoneNumber: '0123' }, 'InvalidFormat'],
  ])(
    'refuses an invalid %s (%j) with %s naming the field, and records nothing',
    async (field, change, code) => {
      const r = await h.run(anonymous, CREATE, { input: { ...valid, ...change } });
      expect(errorOf(r)).toMatchObject({ code, field });
      expect(await outbox(h)).toHaveLength(0);
    },
  );

  it('names every invalid field at once', async () => {
    const r = await h.run(anonymous, CREATE, { input: { ...valid, username: 'x', firstName: '' } });
    expect(r.errors?.[0]?.extensions?.errors?.map((e) => e.field)).toEqual(['username', 'firstName']);
  });

  it('refuses a second account with the same username in another case: AlreadyExists, nothing recorded', async () => {
    await h.ok(anonymous, CREATE, { input: valid });
    const r = await h.run(anonymous, CREATE, { input: { ...valid, username: 'GRACE.HOPPER@example.com' } });
    expect(errorOf(r).code).toBe('AlreadyExists');
    expect(await outbox(h)).toHaveLength(1);
  });

  it('lets ops and users:write apps assign roles, and refuses anyone else', async () => {
    const byOps = await h.ok<{ createUserAccount: { roles: string[] } }>(asOps(), CREATE, {
      input: { ...valid, roles: ['ops'] },
    });
    expect(byOps.createUserAccount.roles).toEqual(['user', 'ops']);
    const byApp = await h.run(asClient(['users:write']), CREATE, {
      input: { ...valid, username: 'b@example.com', roles: ['ops'] },
    });
    expect(byApp.errors).toBeUndefined();
    const byAnon = await h.run(anonymous, CREATE, {
      input: { ...valid, username: 'c@example.com', roles: ['ops'] },
    });
    expect(errorOf(byAnon).code).toBe('Forbidden');
    const byAppWithoutScope = await h.run(asClient(['users:read']), CREATE, {
      input: { ...valid, username: 'd@example.com', roles: ['ops'] },
    });
    expect(errorOf(byAppWithoutScope).code).toBe('Forbidden');
  });
});

describe('reading accounts', () => {
  it('me returns the caller; anonymous is Unauthorized; a token without account:read is Forbidden', async () => {
    const u = await createUser(h);
    const d = await h.ok<{ me: { id: string } }>(u.actor, '{ me { id } }');
    expect(d.me.id).toBe(u.id);
    expect(errorOf(await h.run(anonymous, '{ me { id } }')).code).toBe('Unauthorized');
    expect(errorOf(await h.run(asUser(u.id, scopesWithout('account:read')), '{ me { id } }')).code).toBe(
      'Forbidden',
    );
  });

  it('a user sees only their own account; ops and users:read apps see all; others get NotFound', async () => {
    const a = await createUser(h);
    const b = await createUser(h);
    const list = await h.ok<{ userAccounts: { total: number; nodes: { id: string }[] } }>(
      a.actor,
      '{ userAccounts { total nodes { id } } }',
    );
    expect(list.userAccounts.nodes.map((n) => n.id)).toEqual([a.id]);
    expect(list.userAccounts.total).toBe(1);
    const all = await h.ok<{ userAccounts: { total: number } }>(asOps(), '{ userAccounts { total } }');
    expect(all.userAccounts.total).toBe(2);
    const app = await h.ok<{ userAccounts: { total: number } }>(
      asClient(['users:read']),
      '{ userAccounts { total } }',
    );
    expect(app.userAccounts.total).toBe(2);
    expect(errorOf(await h.run(asClient(['cars:read']), '{ userAccounts { total } }')).code).toBe(
      'Forbidden',
    );
    const other = await h.run(a.actor, 'query($id: UUID!) { userAccount(id: $id) { id } }', { id: b.id });
    expect(errorOf(other).code).toBe('NotFound');
  });

  it('searches by part of the username, by status and by role, sorted and paged, echoing what it applied', async () => {
    await createUser(h, { username: 'alpha@example.com' });
    h.clock.advance(1000);
    await createUser(h, { username: 'beta@example.com' });
    h.clock.advance(1000);
    await createUser(h, { username: 'alphabet@example.com' });
    const q = `query($u: String, $sort: String, $limit: Int, $offset: Int) { userAccounts(username: $u, sort: $sort, limit: $limit, offset: $offset) {
      total limit offset sort { by direction } distinct nodes { username } } }`;
    const d = await h.ok<{ userAccounts: any }>(asOps(), q, {
      u: 'ALPHA',
      sort: 'username',
      limit: 1,
      offset: 1,
    });
    expect(d.userAccounts).toEqual({
      total: 2,
      limit: 1,
      offset: 1,
      sort: { by: 'username', direction: 'Ascending' },
      distinct: null,
      nodes: [{ username: 'alphabet@example.com' }],
    });
    const byDefault = await h.ok<{ userAccounts: any }>(asOps(), q, {});
    expect(byDefault.userAccounts.sort).toEqual({ by: 'createdDateUtc', direction: 'Descending' });
    expect(byDefault.userAccounts.nodes[0].username).toBe('alphabet@example.com');
    const past = await h.ok<{ userAccounts: any }>(asOps(), q, { offset: 10 });
    expect(past.userAccounts).toMatchObject({ total: 3, nodes: [] });
  });

  it.each([
    ['sort', { sort: 'password' }, 'InvalidValue'],
    ['limit', { limit: 0 }, 'OutOfRange'],
    ['limit', { limit: 1001 }, 'OutOfRange'],
    ['offset', { offset: -1 }, 'OutOfRange'],
    ['distinct', { distinct: 'nope' }, 'InvalidValue'],
  ])('refuses a bad %s with %s naming it', async (field, vars, code) => {
    const q =
      'query($sort: String, $limit: Int, $offset: Int, $distinct: String) { userAccounts(sort: $sort, limit: $limit, offset: $offset, distinct: $distinct) { total } }';
    expect(errorOf(await h.run(asOps(), q, vars))).toMatchObject({ code, field });
  });

  it('a malformed id is InvalidFormat naming the argument', async () => {
    const r = await h.run(asOps(), '{ userAccount(id: "nope") { id } }');
    expect(errorOf(r)).toMatchObject({ code: 'InvalidFormat' });
    const v = await h.run(asOps(), 'query($id: UUID!) { userAccount(id: $id) { id } }', { id: 'nope' });
    expect(errorOf(v)).toMatchObject({ code: 'InvalidFormat', field: 'id' });
  });
});
