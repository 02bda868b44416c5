// Accounts and profiles by id, batched per request.
// Plain rows shaped like the entities (src/db/rows.ts): for reading, never for changing.
import { rowsByUniqueKey } from '../graphql/loaders.js';
import { Profile } from './profile.entity.js';
import { UserAccount } from './user-account.entity.js';

export const userAccountById = rowsByUniqueKey(
  'userAccountById',
  UserAccount,
  'user_account',
  'id',
  (u) => u.id,
);
export const profileById = rowsByUniqueKey('profileById', Profile, 'profile', 'id', (p) => p.id);
export const profileByUserId = rowsByUniqueKey(
  'profileByUserId',
  Profile,
  'profile',
  'user_id',
  (p) => p.userId,
);
