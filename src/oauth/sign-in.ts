// Checking a username and password at the sign-in page: 5 wrong passwords in a row lock the account 5 minutes.
import { verifyPassword } from '../accounts/password.js';
import { UserAccount } from '../accounts/user-account.entity.js';
import type { Orm } from '../db/orm.js';
import type { Clock } from '../shared/clock.js';

export const MAX_FAILED_SIGN_INS = 5;
export const LOCK_MS = 5 * 60_000;

/** Verified against when the username is unknown, so both cases cost the same time. */
const DECOY_HASH =
  '$argon2id$v=19$m=19456,t=2,p=1$hurZwhXsMaxFppD1owSVXg$C1otHremDJfb93UwLVRCexmOUgu1tEiHlXUWs2ybC40';

export type SignInResult =
  | { ok: true; accountId: string }
  | { ok: false; reason: 'InvalidCredentials' | 'Suspended' }
  | { ok: false; reason: 'Locked'; lockedUntil: Date };

export async function signIn(
  orm: Orm,
  clock: Clock,
  username: string,
  password: string,
): Promise<SignInResult> {
  const em = orm.em.fork();
  const account = await em.findOne(UserAccount, { username: username.trim().toLowerCase() });
  const now = clock.now();
  if (!account) {
    await verifyPassword(DECOY_HASH, password);
    return { ok: false, reason: 'InvalidCredentials' };
  }
  if (account.lockedUntilUtc && account.lockedUntilUtc > now)
    return { ok: false, reason: 'Locked', lockedUntil: account.lockedUntilUtc };
  if (!(await verifyPassword(account.passwordHash, password))) {
    // One statement, so concurrent wrong guesses all count; the lock restarts the count.
    const [row] = await em.getConnection().execute<{ locked_until_utc: Date | string | null }[]>(
      `update user_account set
         locked_until_utc = case when failed_sign_ins + 1 >= ? then ? else locked_until_utc end,
         failed_sign_ins = case when failed_sign_ins + 1 >= ? then 0 else failed_sign_ins + 1 end
       where id = ? returning locked_until_utc`,
      [MAX_FAILED_SIGN_INS, new Date(now.getTime() + LOCK_MS), MAX_FAILED_SIGN_INS, account.id],
    );
    const lockedUntil = row?.locked_until_utc ? new Date(row.locked_until_utc) : null;
    if (lockedUntil && lockedUntil > now) return { ok: false, reason: 'Locked', lockedUntil };
    return { ok: false, reason: 'InvalidCredentials' };
  }
  if (account.status !== 'Active') return { ok: false, reason: 'Suspended' };
  account.failedSignIns = 0;
  account.lockedUntilUtc = null;
  account.lastSignInDateUtc = now;
  await em.flush();
  return { ok: true, accountId: account.id };
}
