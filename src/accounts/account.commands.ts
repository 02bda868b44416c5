// The business verbs of accounts and profiles.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { actorClass, roles as allRoles, isSelf, type Role } from '../access/actor.js';
import { deleteOAuthRows } from '../access/revocation.js';
import { inDefaultCarShare } from '../carshares/default-car-share.js';
import { recordEvent } from '../events/outbox.js';
import type { CommandContext } from '../graphql/context.js';
import { DomainError, fieldLabel, forbidden, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { Check } from '../shared/validation.js';
import { createRequiredVerifications, resetVerification } from '../verifications/verification.commands.js';
import { canAdministerAccounts, canSeeAccount } from './account.rules.js';
import { countWrongPassword, lockedUntil } from './lockout.js';
import { checkPassword, hashPassword, verifyPassword } from './password.js';
import { Profile } from './profile.entity.js';
import { type AccountStatus, accountStatuses, UserAccount } from './user-account.entity.js';
import { checkUsername } from './username.js';

export interface CreateUserAccountInput {
  username?: string | null;
  password?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  phoneNumber?: string | null;
  roles?: string[] | null;
}

function checkRoles(check: Check, field: string, roles: string[] | null | undefined): Role[] | undefined {
  if (roles === undefined || roles === null) return undefined;
  for (const r of roles) check.oneOf(field, r, allRoles);
  return [
    ...new Set<Role>([
      'user',
      ...(roles.filter((r) => (allRoles as readonly string[]).includes(r)) as Role[]),
    ]),
  ];
}

/** Role `platform` is held only by accounts of the default car share (CONTRACT §22): elsewhere 400 naming Roles. */
async function refusePlatformRoleOutsideDefault(em: EntityManager, roles: Role[] | undefined): Promise<void> {
  if (!roles?.includes('platform') || (await inDefaultCarShare(em))) return;
  const check = new Check();
  check.add('InvalidValue', 'roles', 'Roles: platform is held only by accounts of the default car share');
  check.throwIfAny();
}

async function flushUnique(em: EntityManager, what: string): Promise<void> {
  try {
    await em.flush();
  } catch (e) {
    if (e instanceof UniqueConstraintViolationException || (e as { code?: string }).code === '23505')
      throw new DomainError('AlreadyExists', `${what} already exists`, { field: 'username' });
    throw e;
  }
}

export async function createUserAccount(
  ctx: CommandContext,
  input: CreateUserAccountInput,
): Promise<UserAccount> {
  const check = new Check();
  const username = check.required('username', input.username)
    ? checkUsername(check, 'username', input.username!)
    : undefined;
  checkPassword(check, 'password', input.password);
  if (check.required('firstName', input.firstName))
    check.length('firstName', input.firstName?.trim(), 1, 100);
  if (check.required('lastName', input.lastName)) check.length('lastName', input.lastName?.trim(), 1, 100);
  if (input.phoneNumber) check.e164('phoneNumber', input.phoneNumber.trim());
  const roles = checkRoles(check, 'roles', input.roles);
  check.throwIfAny();
  if (roles?.some((r) => r !== 'user') && !canAdministerAccounts(ctx.actor))
    throw forbidden('Only operators and client applications with users:write may assign roles');
  await refusePlatformRoleOutsideDefault(ctx.em, roles);

  if (await ctx.em.findOne(UserAccount, { username: username! }))
    throw new DomainError('AlreadyExists', 'An account with this username already exists', {
      field: 'username',
    });
  const now = ctx.clock.now();
  const account = ctx.em.create(UserAccount, {
    id: newId(),
    username: username!,
    passwordHash: await hashPassword(input.password!),
    roles: roles ?? ['user'],
    status: 'Active',
    lastSignInDateUtc: null,
    failedSignIns: 0,
    lockedUntilUtc: null,
    createdDateUtc: now,
    lastModifiedDateUtc: now,
  });
  const firstName = input.firstName!.trim();
  const lastName = input.lastName!.trim();
  ctx.em.create(Profile, {
    id: newId(),
    userId: account.id,
    firstName,
    lastName,
    displayName: `${firstName} ${lastName.charAt(0)}.`,
    phoneNumber: input.phoneNumber?.trim() || null,
    description: null,
    avatarUrl: null,
    createdDateUtc: now,
    lastModifiedDateUtc: now,
  });
  createRequiredVerifications(ctx, 'UserAccount', account.id, account.id);
  recordEvent(ctx, 'useraccount_create', { id: account.id, createdDateUtc: now }, [account.id]);
  await flushUnique(ctx.em, 'An account with this username');
  return account;
}

export interface UpdateUserAccountInput {
  username?: string | null;
  password?: string | null;
  currentPassword?: string | null;
  status?: string | null;
  roles?: string[] | null;
}

async function loadVisible(ctx: CommandContext, id: string): Promise<UserAccount> {
  const account = await ctx.em.findOne(UserAccount, { id });
  if (!account || !canSeeAccount(ctx.actor, id)) throw notFound('User account');
  return account;
}

const hhmm = (d: Date): string => `${d.toISOString().slice(11, 16)} UTC`;

/**
 * CurrentPassword is a password guess like a sign-in's: a wrong one counts toward the lockout, and while the
 * account is locked none is checked (a stolen token cannot try passwords where the sign-in page may not).
 */
async function checkCurrentPassword(
  ctx: CommandContext,
  check: Check,
  account: UserAccount,
  password: string,
): Promise<void> {
  const now = ctx.clock.now();
  const locked = lockedUntil(account, now);
  if (locked) {
    check.add(
      'InvalidValue',
      'currentPassword',
      `CurrentPassword cannot be checked: too many wrong passwords locked this account until ${hhmm(locked)}`,
    );
    return;
  }
  if (await verifyPassword(account.passwordHash, password)) {
    account.failedSignIns = 0;
    return;
  }
  const lockedNow = await countWrongPassword(ctx.em, account.id, now);
  check.add(
    'InvalidValue',
    'currentPassword',
    lockedNow
      ? `CurrentPassword is not the current password; too many wrong passwords locked this account until ${hhmm(lockedNow)}`
      : 'CurrentPassword is not the current password',
  );
}

export async function updateUserAccount(
  ctx: CommandContext,
  id: string,
  input: UpdateUserAccountInput,
): Promise<UserAccount> {
  const account = await loadVisible(ctx, id);
  const admin = canAdministerAccounts(ctx.actor);
  const self = isSelf(ctx.actor, id);
  if (!admin && !self) throw forbidden();
  if (!admin && (input.status != null || input.roles != null))
    throw forbidden('Only operators and client applications with users:write may change Status or Roles');
  const check = new Check();
  const username = input.username != null ? checkUsername(check, 'username', input.username) : undefined;
  if (input.password != null) checkPassword(check, 'password', input.password);
  check.oneOf('status', input.status, accountStatuses);
  const roles = checkRoles(check, 'roles', input.roles);
  // A person changing their own password proves they know the current one; administrators reset it.
  if (input.password != null && !admin && check.required('currentPassword', input.currentPassword))
    await checkCurrentPassword(ctx, check, account, input.currentPassword!);
  check.throwIfAny();
  await refusePlatformRoleOutsideDefault(ctx.em, roles);

  const now = ctx.clock.now();
  if (username !== undefined) {
    if (username !== account.username) {
      const taken = await ctx.em.findOne(UserAccount, { username });
      if (taken)
        throw new DomainError('AlreadyExists', 'An account with this username already exists', {
          field: 'username',
        });
      account.username = username;
      // The username is the e-mail address: a new one has to be verified again.
      await resetVerification(ctx, 'UserAccount', account.id, 'Email');
    }
  }
  if (input.password != null) account.passwordHash = await hashPassword(input.password);
  if (input.status != null && input.status !== account.status) {
    account.status = input.status as AccountStatus;
    if (account.status === 'Suspended') await revokeTokensOf(ctx, account.id);
  }
  if (roles) account.roles = roles;
  account.lastModifiedDateUtc = now;
  await flushUnique(ctx.em, 'An account with this username');
  return account;
}

/**
 * Suspension revokes every token, grant and sign-in session issued to the user, in the caller's transaction:
 * reactivating the account later brings none of them back (CONTRACT §14), as for client applications.
 */
async function revokeTokensOf(ctx: CommandContext, accountId: string): Promise<void> {
  await deleteOAuthRows(ctx.em, { accountId });
}

async function setStatus(ctx: CommandContext, id: string, status: AccountStatus): Promise<UserAccount> {
  const account = await loadVisible(ctx, id);
  if (account.status !== status) {
    account.status = status;
    account.lastModifiedDateUtc = ctx.clock.now();
    if (status === 'Suspended') await revokeTokensOf(ctx, account.id);
  }
  return account;
}

export const suspendUserAccount = (ctx: CommandContext, id: string) => setStatus(ctx, id, 'Suspended');
export const reactivateUserAccount = (ctx: CommandContext, id: string) => setStatus(ctx, id, 'Active');

export interface UpdateProfileInput {
  firstName?: string | null;
  lastName?: string | null;
  displayName?: string | null;
  phoneNumber?: string | null;
  description?: string | null;
  avatarUrl?: string | null;
}

const pascal = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

export async function updateProfile(
  ctx: CommandContext,
  id: string,
  input: UpdateProfileInput,
): Promise<Profile> {
  const profile = await ctx.em.findOne(Profile, { id });
  if (!profile) throw notFound('Profile');
  if (!isSelf(ctx.actor, profile.userId) && actorClass(ctx.actor) !== 'ops')
    throw forbidden('Only the profile’s owner may change it');
  const check = new Check();
  for (const f of ['firstName', 'lastName', 'displayName'] as const) {
    if (input[f] === null) check.add('NotEmpty', f, `${fieldLabel(f)} must not be empty`);
    else if (input[f] !== undefined && check.required(f, input[f])) check.length(f, input[f]!.trim(), 1, 100);
  }
  if (input.phoneNumber) check.e164('phoneNumber', input.phoneNumber.trim());
  check.length('description', input.description, 0, 1000);
  if (input.avatarUrl)
    check.url('avatarUrl', input.avatarUrl.trim()).length('avatarUrl', input.avatarUrl, 0, 2048);
  check.throwIfAny();

  const changed: string[] = [];
  const set = <K extends keyof UpdateProfileInput>(k: K, value: string | null) => {
    if (profile[k] !== value) {
      (profile[k] as string | null) = value;
      changed.push(pascal(k));
    }
  };
  for (const k of ['firstName', 'lastName', 'displayName'] as const)
    if (input[k] != null) set(k, input[k]!.trim());
  for (const k of ['phoneNumber', 'description', 'avatarUrl'] as const)
    if (input[k] !== undefined)
      set(k, input[k] === null || input[k]!.trim() === '' ? null : input[k]!.trim());
  if (changed.length === 0) return profile;
  profile.lastModifiedDateUtc = ctx.clock.now();
  if (changed.includes('PhoneNumber'))
    await resetVerification(ctx, 'UserAccount', profile.userId, 'PhoneNumber');
  recordEvent(ctx, 'profile_update', { id: profile.id, userId: profile.userId, changedFields: changed }, [
    profile.userId,
  ]);
  return profile;
}
