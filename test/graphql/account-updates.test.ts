// Changing accounts and profiles: who may, what is validated, what is recorded.
import { describe, expect, it } from 'vitest';
import { createUser, markVerified, outbox } from '../factories/accounts.js';
import { anonymous, asClient, asOps, asUser, scopesWithout } from '../support/actors.js';
import { errorOf, useHarness } from '../support/harness.js';

const h = useHarness();

const UPDATE = `mutation($id: UUID!, $input: UpdateUserAccountInput!) {
  updateUserAccount(id: $id, input: $input) { id username status roles lastModifiedDateUtc } }`;
const SUSPEND = 'mutation($id: UUID!) { suspendUserAccount(id: $id) { id status } }';
const REACTIVATE = 'mutation($id: UUID!) { reactivateUserAccount(id: $id) { id status } }';
const PROFILE = `mutation($id: UUID!, $input: UpdateProfileInput!) {
  updateProfile(id: $id, input: $input) { id firstName lastName displayName phoneNumber description avatarUrl } }`;

const passwordHash = async (id: string) =>
  (
    await h.orm.em
      .fork()
      .getConnection()
      .execute<{ password_hash: string }[]>('select password_hash from user_account where id = ?', [id])
  )[0]!.password_hash;

describe('updateUserAccount', () => {
  it('lets a person change their username (resetting the Email verification) and password (with the current one)', async () => {
    const u = await createUser(h);
    await markVerified(h, 'UserAccount', u.id);
    h.clock.advance(60_000);
    const d = await h.ok<any>(u.actor, UPDATE, { id: u.id, input: { username: 'New.Name@Example.com' } });
    expect(d.updateUserAccount).toMatchObject({
      username: 'new.name@example.com',
      lastModifiedDateUtc: '2026-07-01T10:01:00.000Z',
    });
    const v = await h.ok<any>(u.actor, '{ me { isVerifiedBorrower verifications { kind status } } }');
    expect(v.me.isVerifiedBorrower).toBe(false);
    expect(v.me.verifications.find((x: any) => x.kind === 'Email').status).toBe('Unverified');
    const events = await outbox(h);
    expect(events.map((e) => e.name)).toEqual(['useraccount_create', 'verification_update']);
    expect(events[1]!.payload).toMatchObject({ Kind: 'Email', Status: 'Unverified', SubjectId: u.id });

    const before = await passwordHash(u.id);
    const noCurrent = await h.run(u.actor, UPDATE, {
      id: u.id,
      input: { password: 'another long passphrase' },
    });
    expect(errorOf(noCurrent)).toMatchObject({ code: 'NotEmpty', field: 'currentPassword' });
    const wrong = await h.run(u.actor, UPDATE, {
      id: u.id,
      input: { password: 'another long passphrase', currentPassword: 'not my password at all' },
    });
    expect(errorOf(wrong)).toMatchObject({ code: 'InvalidValue', field: 'currentPassword' });
    expect(await passwordHash(u.id)).toBe(before);
    await h.ok(u.actor, UPDATE, {
      id: u.id,
      input: { password: 'another long passphrase', currentPassword: u.password },
    });
    const after = await passwordHash(u.id);
    expect(after).not.toBe(before);
    expect(after).toMatch(/^\$argon2id\$/);
  });

  it('refuses a taken username (any case), a common password, and Status/Roles from the person themself', async () => {
    const a = await createUser(h);
    const b = await createUser(h);
    expect(
      errorOf(await h.run(a.actor, UPDATE, { id: a.id, input: { username: b.username.toUpperCase() } })).code,
    ).toBe('AlreadyExists');
    expect(
      errorOf(
        await h.run(a.actor, UPDATE, {
          id: a.id,
          input: { password: 'qwerty123', currentPassword: a.password },
        }),
      ),
    ).toMatchObject({ code: 'InvalidValue', field: 'password' });
    expect(errorOf(await h.run(a.actor, UPDATE, { id: a.id, input: { status: 'Suspended' } })).code).toBe(
      'Forbidden',
    );
    expect(errorOf(await h.run(a.actor, UPDATE, { id: a.id, input: { roles: ['ops'] } })).code).toBe(
      'Forbidden',
    );
  });

  it('lets ops and users:write apps set status, roles and a password without the current one', async () => {
    const u = await createUser(h);
    const d = await h.ok<any>(asOps(), UPDATE, { id: u.id, input: { status: 'Suspended', roles: ['ops'] } });
    expect(d.updateUserAccount).toMatchObject({ status: 'Suspended', roles: ['user', 'ops'] });
    const e = await h.ok<any>(asClient(['users:write']), UPDATE, {
      id: u.id,
      input: { password: 'reset by the helpdesk 42' },
    });
    expect(e.updateUserAccount.id).toBe(u.id);
    expect(errorOf(await h.run(asOps(), UPDATE, { id: u.id, input: { status: 'Gone' } }))).toMatchObject({
      code: 'InvalidValue',
      field: 'input.status',
    });
  });

  it('hides other people’s accounts (NotFound) and needs account:write', async () => {
    const a = await createUser(h);
    const b = await createUser(h);
    expect(
      errorOf(await h.run(a.actor, UPDATE, { id: b.id, input: { username: 'x@example.com' } })).code,
    ).toBe('NotFound');
    expect(
      errorOf(
        await h.run(asUser(a.id, scopesWithout('account:write')), UPDATE, {
          id: a.id,
          input: { username: 'x@example.com' },
        }),
      ).code,
    ).toBe('Forbidden');
    expect(errorOf(await h.run(anonymous, UPDATE, { id: a.id, input: {} })).code).toBe('Unauthorized');
    expect(errorOf(await h.run(asClient(['users:read']), UPDATE, { id: a.id, input: {} })).code).toBe(
      'Forbidden',
    );
  });
});

describe('suspendUserAccount and reactivateUserAccount', () => {
  it('ops and users:write apps suspend and reactivate, idempotently; users cannot', async () => {
    const u = await createUser(h);
    expect((await h.ok<any>(asOps(), SUSPEND, { id: u.id })).suspendUserAccount.status).toBe('Suspended');
    expect((await h.ok<any>(asOps(), SUSPEND, { id: u.id })).suspendUserAccount.status).toBe('Suspended');
    expect(
      (await h.ok<any>(asClient(['users:write']), REACTIVATE, { id: u.id })).reactivateUserAccount.status,
    ).toBe('Active');
    expect(errorOf(await h.run(u.actor, SUSPEND, { id: u.id })).code).toBe('Forbidden');
    expect(errorOf(await h.run(asClient(['users:read']), SUSPEND, { id: u.id })).code).toBe('Forbidden');
    expect(errorOf(await h.run(asOps(), SUSPEND, { id: '00000000-0000-4000-8000-000000000000' })).code).toBe(
      'NotFound',
    );
  });
});

describe('profiles', () => {
  it('any authenticated caller reads public fields; the phone number only for the person, ops and users:read', async () => {
    const a = await createUser(h, { phoneNumber: '+442071838750' });
    const b = await createUser(h);
    const q = 'query($id: UUID!) { profile(id: $id) { id userId displayName phoneNumber rating { count } } }';
    expect((await h.ok<any>(b.actor, q, { id: a.profileId })).profile).toMatchObject({
      userId: a.id,
      phoneNumber: null,
    });
    expect((await h.ok<any>(a.actor, q, { id: a.profileId })).profile.phoneNumber).toBe('+442071838750');
    expect((await h.ok<any>(asOps(), q, { id: a.profileId })).profile.phoneNumber).toBe('+442071838750');
    expect((await h.ok<any>(asClient(['users:read']), q, { id: a.profileId })).profile.phoneNumber).toBe(
      '+442071838750',
    );
    expect((await h.ok<any>(asClient(['cars:read']), q, { id: a.profileId })).profile.phoneNumber).toBeNull();
    expect(errorOf(await h.run(anonymous, q, { id: a.profileId })).code).toBe('Unauthorized');
    expect(errorOf(await h.run(b.actor, q, { id: '00000000-0000-4000-8000-000000000000' })).code).toBe(
      'NotFound',
    );
  });

  it('updates only what is supplied and records profile_update with the changed fields in PascalCase', async () => {
    const u = await createUser(h, { phoneNumber: '+14155550100' });
    await markVerified(h, 'UserAccount', u.id);
    const d = await h.ok<any>(u.actor, PROFILE, {
      id: u.profileId,
      input: {
        displayName: 'Ada',
        description: 'I drive carefully',
        phoneNumber: '+14155550199',
        firstName: 'Ada',
      },
    });
    expect(d.updateProfile).toMatchObject({
      firstName: 'Ada',
      displayName: 'Ada',
      description: 'I drive carefully',
      phoneNumber: '+14155550199',
    });
    const events = await outbox(h);
    const update = events.find((e) => e.name === 'profile_update')!;
    expect(update.payload).toEqual({
      Name: 'profile_update',
      OccurredDateUtc: '2026-07-01T10:00:00.000Z',
      Id: u.profileId,
      UserId: u.id,
      ChangedFields: ['DisplayName', 'PhoneNumber', 'Description'],
    });
    // A new phone number must be verified again.
    const phone = events.find((e) => e.name === 'verification_update')!;
    expect(phone.payload).toMatchObject({ Kind: 'PhoneNumber', Status: 'Unverified' });
    // Nothing changed: no event.
    await h.ok(u.actor, PROFILE, { id: u.profileId, input: { displayName: 'Ada' } });
    expect((await outbox(h)).filter((e) => e.name === 'profile_update')).toHaveLength(1);
  });

  it.each([
    ['firstName', { firstName: '' }, 'NotEmpty'],
    ['displayName', { displayName: 'x'.repeat(101) }, 'TooLong'],
    ['phoneNumber', { phoneNumber: '555-1234' }, 'InvalidFormat'],
    ['description', { description: 'x'.repeat(1001) }, 'TooLong'],
    ['avatarUrl', { avatarUrl: 'http://example.com/a.png' }, 'InvalidFormat'],
  ])('refuses an invalid %s with %s and records nothing', async (field, input, code) => {
    const u = await createUser(h);
    expect(errorOf(await h.run(u.actor, PROFILE, { id: u.profileId, input }))).toMatchObject({ code, field });
    expect((await outbox(h)).filter((e) => e.name === 'profile_update')).toHaveLength(0);
  });

  it('only the person (or ops) changes a profile, with account:write', async () => {
    const a = await createUser(h);
    const b = await createUser(h);
    expect(
      errorOf(await h.run(b.actor, PROFILE, { id: a.profileId, input: { displayName: 'Hijack' } })).code,
    ).toBe('Forbidden');
    expect(
      errorOf(
        await h.run(asUser(a.id, scopesWithout('account:write')), PROFILE, {
          id: a.profileId,
          input: { displayName: 'X' },
        }),
      ).code,
    ).toBe('Forbidden');
    expect(
      errorOf(
        await h.run(asClient(['users:write']), PROFILE, { id: a.profileId, input: { displayName: 'X' } }),
      ).code,
    ).toBe('Forbidden');
    expect(
      (await h.ok<any>(asOps(), PROFILE, { id: a.profileId, input: { displayName: 'Moderated' } }))
        .updateProfile.displayName,
    ).toBe('Moderated');
  });
});
