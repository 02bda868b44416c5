// Reading accounts and profiles, with their visibility rules.

import { actorClass, hasScope } from '../access/actor.js';
import { carShareIdOf } from '../db/car-share-condition.js';
import { plainRows } from '../db/rows.js';
import { searchRows } from '../db/search.js';
import type { Context } from '../graphql/context.js';
import { notFound, unauthorized } from '../shared/errors.js';
import { type Page, type PageArgs, pageRequest } from '../shared/pagination.js';
import { profileById, userAccountById } from './account.loaders.js';
import { canSeeAccount } from './account.rules.js';
import type { Profile } from './profile.entity.js';
import { UserAccount } from './user-account.entity.js';

const columns = {
  createdDateUtc: 'created_date_utc',
  lastModifiedDateUtc: 'last_modified_date_utc',
  username: 'username',
  status: 'status',
  lastSignInDateUtc: 'last_sign_in_date_utc',
} as const;

export interface UserAccountFilter extends PageArgs {
  username?: string | null;
  search?: string | null;
  status?: string | null;
  role?: string | null;
}

export async function searchUserAccounts(ctx: Context, args: UserAccountFilter): Promise<Page<UserAccount>> {
  const page = pageRequest(args, { fields: Object.keys(columns), defaultSort: '-createdDateUtc' });
  const where: string[] = [];
  const params: unknown[] = [];
  const cls = actorClass(ctx.actor);
  if (
    !(
      cls === 'ops' ||
      (cls === 'clientapplication' &&
        (hasScope(ctx.actor, 'users:read') || hasScope(ctx.actor, 'users:write')))
    )
  ) {
    where.push('id = ?');
    params.push(ctx.actor.id);
  }
  if (args.username) {
    where.push(`username like ? escape '\\'`);
    params.push(
      `%${args.username
        .trim()
        .toLowerCase()
        .replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
    );
  }
  if (args.search?.trim()) {
    // A person is found by e-mail or by name (the operators' search box).
    const like = `%${args.search
      .trim()
      .toLowerCase()
      .replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.push(`(username like ? escape '\\' or id in (select user_id from profile where car_share_id = ?
      and (lower(first_name || ' ' || last_name) like ? escape '\\' or lower(display_name) like ? escape '\\')))`);
    params.push(like, carShareIdOf(ctx.em), like, like);
  }
  if (args.status) {
    where.push('status = ?');
    params.push(args.status);
  }
  if (args.role) {
    where.push('roles @> ?::jsonb');
    params.push(JSON.stringify([args.role]));
  }
  const { rows, total } = await searchRows<Record<string, unknown>>(
    ctx.em,
    { table: 'user_account', where, params, columns },
    page,
  );
  return { ...page, total, nodes: plainRows(ctx.em, UserAccount, rows) };
}

export async function getUserAccount(ctx: Context, id: string): Promise<UserAccount> {
  if (!canSeeAccount(ctx.actor, id)) throw notFound('User account');
  const account = await userAccountById(ctx).load(id);
  if (!account) throw notFound('User account');
  return account;
}

export async function getMe(ctx: Context): Promise<UserAccount> {
  if (ctx.actor.kind !== 'user' || !ctx.actor.id) throw unauthorized('Only a signed-in user has an account');
  return getUserAccount(ctx, ctx.actor.id);
}

export async function getProfile(ctx: Context, id: string): Promise<Profile> {
  const profile = await profileById(ctx).load(id);
  if (!profile) throw notFound('Profile');
  return profile;
}
