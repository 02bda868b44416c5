// Accounts and profiles by id, batched per request.
// Plain rows shaped like the entities (src/db/rows.ts): for reading, never for changing.
import type { Read } from '../db/views.js';
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
/** Primed with views by the reads of cars that embed their owners (src/cars/car-embeds.ts). */
export const profileByUserId = rowsByUniqueKey<Profile, Read<Profile>>(
  'profileByUserId',
  Profile,
  'profile',
  'user_id',
  (p) => p.userId,
);
