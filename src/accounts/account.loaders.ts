// Accounts and profiles by id, batched per request.
import { byKey, defineLoader } from '../graphql/loaders.js';
import { Profile } from './profile.entity.js';
import { UserAccount } from './user-account.entity.js';

export const userAccountById = defineLoader<string, UserAccount | null>('userAccountById', async (em, ids) =>
  byKey(ids, await em.find(UserAccount, { id: { $in: [...ids] } }), (u) => u.id, null),
);

export const profileById = defineLoader<string, Profile | null>('profileById', async (em, ids) =>
  byKey(ids, await em.find(Profile, { id: { $in: [...ids] } }), (p) => p.id, null),
);

export const profileByUserId = defineLoader<string, Profile | null>('profileByUserId', async (em, ids) =>
  byKey(ids, await em.find(Profile, { userId: { $in: [...ids] } }), (p) => p.userId, null),
);
