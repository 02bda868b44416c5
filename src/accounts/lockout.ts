// Wrong passwords lock an account: 5 in a row, wherever they are tried (the sign-in page, or a password change's
// CurrentPassword), lock it for 5 minutes; the right password ends the run.
import type { EntityManager } from '@mikro-orm/postgresql';
import { carShareIdOf } from '../db/car-share-condition.js';
import { runSql } from '../db/rows.js';
import type { UserAccount } from './user-account.entity.js';

export const MAX_FAILED_SIGN_INS = 5;
export const LOCK_MS = 5 * 60_000;

/** The end of the account's lock, when it is locked at `now`. */
export const lockedUntil = (account: UserAccount, now: Date): Date | undefined =>
  account.lockedUntilUtc && account.lockedUntilUtc > now ? account.lockedUntilUtc : undefined;

/**
 * Counts one wrong password; returns the end of the lock when this one locked the account. One statement, so
 * concurrent wrong guesses all count; the lock restarts the count. It runs on its own connection, outside any
 * transaction of the caller (in a short one of the caller's car share scope): a refused request rolls back its own
 * work, never the count.
 */
export async function countWrongPassword(
  em: EntityManager,
  accountId: string,
  now: Date,
): Promise<Date | undefined> {
  // A fork keeps the caller's car share scope (src/db/scope.ts) and starts no transaction of the caller's: the
  // statement runs in a short one of that scope, and names the car share (CONTRACT §25).
  const [row] = await runSql<{ locked_until_utc: Date | string | null }>(
    em.fork(),
    `update user_account set
       locked_until_utc = case when failed_sign_ins + 1 >= ? then ? else locked_until_utc end,
       failed_sign_ins = case when failed_sign_ins + 1 >= ? then 0 else failed_sign_ins + 1 end
     where car_share_id = ? and id = ? returning locked_until_utc`,
    [
      MAX_FAILED_SIGN_INS,
      new Date(now.getTime() + LOCK_MS),
      MAX_FAILED_SIGN_INS,
      carShareIdOf(em),
      accountId,
    ],
  );
  const until = row?.locked_until_utc ? new Date(row.locked_until_utc) : null;
  return until && until > now ? until : undefined;
}
