// GraphQL for accounts and profiles: thin; reads through loaders, changes through commands.
import type { IResolvers } from '@graphql-tools/utils';
import type { AuditDeclarations } from '../audit/audit.declaration.js';
import type { Context } from '../graphql/context.js';
import type { DomainModule } from '../graphql/module.js';
import { ratingBySubject } from '../ratings/rating.loaders.js';
import { isSubjectVerified, verificationsBySubject } from '../verifications/verification.loaders.js';
import {
  type CreateUserAccountInput,
  createUserAccount,
  reactivateUserAccount,
  suspendUserAccount,
  type UpdateProfileInput,
  type UpdateUserAccountInput,
  updateProfile,
  updateUserAccount,
} from './account.commands.js';
import { profileByUserId } from './account.loaders.js';
import {
  getMe,
  getProfile,
  getUserAccount,
  searchUserAccounts,
  type UserAccountFilter,
} from './account.queries.js';
import { canSeeProfilePii } from './account.rules.js';
import { type Counterparties, noCounterparties, partnerLoader } from './counterparties.js';
import { type Profile, ProfileSchema } from './profile.entity.js';
import { type UserAccount, UserAccountSchema } from './user-account.entity.js';

type Id = { id: string };
type With<I> = Id & { input: I };

function accountsResolvers(counterparties: Counterparties): IResolvers<unknown, Context> {
  const partners$ = partnerLoader(counterparties);
  return {
    Query: {
      me: (_: unknown, __: unknown, ctx: Context) => getMe(ctx),
      userAccounts: (_: unknown, args: UserAccountFilter, ctx: Context) => searchUserAccounts(ctx, args),
      userAccount: (_: unknown, { id }: Id, ctx: Context) => getUserAccount(ctx, id),
      profile: (_: unknown, { id }: Id, ctx: Context) => getProfile(ctx, id),
    },
    Mutation: {
      createUserAccount: (_: unknown, { input }: { input: CreateUserAccountInput }, ctx: Context) =>
        createUserAccount(ctx, input),
      updateUserAccount: (_: unknown, { id, input }: With<UpdateUserAccountInput>, ctx: Context) =>
        updateUserAccount(ctx, id, input),
      suspendUserAccount: (_: unknown, { id }: Id, ctx: Context) => suspendUserAccount(ctx, id),
      reactivateUserAccount: (_: unknown, { id }: Id, ctx: Context) => reactivateUserAccount(ctx, id),
      updateProfile: (_: unknown, { id, input }: With<UpdateProfileInput>, ctx: Context) =>
        updateProfile(ctx, id, input),
    },
    UserAccount: {
      isVerifiedBorrower: (u: UserAccount, _: unknown, ctx: Context) =>
        isSubjectVerified(ctx, { subjectType: 'UserAccount', subjectId: u.id }),
      profile: (u: UserAccount, _: unknown, ctx: Context) => profileByUserId(ctx).load(u.id),
      verifications: (u: UserAccount, _: unknown, ctx: Context) =>
        verificationsBySubject(ctx).load({ subjectType: 'UserAccount', subjectId: u.id }),
      rating: (u: UserAccount, _: unknown, ctx: Context) =>
        ratingBySubject(ctx).load({ subjectType: 'UserAccount', subjectId: u.id }),
    },
    Profile: {
      // Answered in the same turn when no partnership has to be read (an owner on every car of a page).
      phoneNumber: (p: Profile, _: unknown, ctx: Context) => {
        if (p.phoneNumber === null || canSeeProfilePii(ctx.actor, p.userId)) return p.phoneNumber;
        if (ctx.actor.kind !== 'user' || !ctx.actor.id) return null;
        return partners$(ctx)
          .load({ viewerId: ctx.actor.id, subjectId: p.userId })
          .then((partners) => (partners ? p.phoneNumber : null));
      },
      rating: (p: Profile, _: unknown, ctx: Context) =>
        ratingBySubject(ctx).known({ subjectType: 'UserAccount', subjectId: p.userId }),
    },
  };
}

/** Accounts, told by `counterparties` who shares a live booking with whom (for the phone number rule). */
export function createAccountsModule(counterparties: Counterparties = noCounterparties): DomainModule {
  return {
    name: 'accounts',
    entities: [UserAccountSchema, ProfileSchema],
    resolvers: accountsResolvers(counterparties),
    audit,
  };
}

/** Operators and client applications with `users:write` administering accounts (CONTRACT §18). */
const audit: AuditDeclarations = {
  createUserAccount: { subjectType: 'UserAccount', subjectId: (_, r: UserAccount) => r.id },
  updateUserAccount: { subjectType: 'UserAccount', subjectId: ({ id }: Id) => id },
  suspendUserAccount: { subjectType: 'UserAccount', subjectId: ({ id }: Id) => id },
  reactivateUserAccount: { subjectType: 'UserAccount', subjectId: ({ id }: Id) => id },
  updateProfile: { subjectType: 'UserAccount', subjectId: (_, r: Profile) => r.userId },
};

export const accountsModule: DomainModule = createAccountsModule();
