// Accounts and profiles by id, batched per request.
// Plain rows shaped like the entities (src/db/rows.ts): for reading, never for changing.
import { placeholders, readRows } from '../db/rows.js';
import { byKey, defineLoader } from '../graphql/loaders.js';
import { Profile } from './profile.entity.js';
import { UserAccount } from './user-account.entity.js';

const where = (column: string, n: number) => `where ${column} in (${placeholders(n)})`;

export const userAccountById = defineLoader<string, UserAccount | null>('userAccountById', async (em, ids) =>
  byKey(
    ids,
    await readRows(em, UserAccount, `select * from user_account ${where('id', ids.length)}`, ids),
    (u) => u.id,
    null,
  ),
);

export const profileById = defineLoader<string, Profile | null>('profileById', async (em, ids) =>
  byKey(
    ids,
    await readRows(em, Profile, `select * from profile ${where('id', ids.length)}`, ids),
    (p) => p.id,
    null,
  ),
);

export const profileByUserId = defineLoader<string, Profile | null>('profileByUserId', async (em, ids) =>
  byKey(
    ids,
    await readRows(em, Profile, `select * from profile ${where('user_id', ids.length)}`, ids),
    (p) => p.userId,
    null,
  ),
);
